"""A hand-written Mordheim fight replays to the states the rule text demands."""

from __future__ import annotations

from pathlib import Path

from woundlog.replays import replay_file

STORY = Path(__file__).parent.parent / "data" / "mordheim_story.jsonl"


def states_at(seq: int) -> dict[str, str]:
    steps = list(replay_file(STORY, at=seq))
    return {cid: c.state for cid, c in steps[-1][0].characters.items()}


def test_the_first_wound_of_two_rolls_nothing_and_the_second_stuns() -> None:
    assert states_at(7)["grim"] == "upright"
    assert states_at(8)["grim"] == "stunned"


def test_a_two_wound_hit_keeps_the_highest_of_its_two_rolls() -> None:
    assert states_at(9)["ulf"] == "knocked_down"


def test_recovery_phase_turns_the_stunned_face_up_and_stands_the_knocked_down() -> None:
    after = states_at(11)
    assert after["grim"] == "knocked_down"
    assert after["ulf"] == "upright"


def test_out_of_action_is_removed_for_the_rest_of_the_fight() -> None:
    assert states_at(12)["snik"] == "out_of_action"
    assert states_at(20)["snik"] == "out_of_action"


def test_a_fighter_back_up_on_zero_wounds_rolls_on_the_next_wound() -> None:
    assert states_at(15)["ulf"] == "knocked_down"


def test_the_second_recovery_phase_stands_the_stunned_fighter() -> None:
    assert states_at(17)["grim"] == "upright"


def test_the_gms_mistake_stands_until_it_is_retracted() -> None:
    assert states_at(18)["krak"] == "stunned"
    assert states_at(19)["krak"] == "upright"


def test_the_whole_story_replays_to_its_final_states() -> None:
    assert states_at(20) == {
        "grim": "upright",
        "ulf": "upright",
        "snik": "out_of_action",
        "krak": "upright",
    }
