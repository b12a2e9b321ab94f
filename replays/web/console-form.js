// The console's forms: a hit, a heal, a check or a choice for one character, its fields made
// from what the fight's ruleset declares (GET /rulesets: its facts with the values each takes,
// its means of healing, checks and choices), read back into one event as a log holds it. The
// form knows no rule: the service decides what the event does, or refuses it.

const KINDS = {
  hit: { title: "Hit", amount: "damage", amountLabel: "Damage", by: "attacker", byLabel: "Attacker", facts: "hit_facts" },
  heal: { title: "Heal", amount: "amount", amountLabel: "Amount", by: "healer", byLabel: "Healer", facts: "heal_facts" },
};

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A labelled field: `[label, control]`, wrapped so a phone stacks them. */
function field(id, label, control) {
  control.id = id;
  const wrap = element("div", { class: "field" });
  wrap.append(element("label", { for: id }, label), control);
  return wrap;
}

function select(name, options, chosen = "") {
  const node = element("select", { name });
  for (const [value, text] of options) {
    const option = element("option", { value }, text);
    if (value === chosen) option.selected = true;
    node.append(option);
  }
  return node;
}

const words = (name) => name.replaceAll("_", " ");

/** The characters as options, `[id, name]`, in the order given. */
const people = (roster) => roster.map(({ id, name }) => [id, name]);

function factField(fact) {
  const id = `fact-${fact.name}`;
  if (fact.kind === "bool") {
    const box = element("input", { type: "checkbox", name: fact.name, "data-fact": "bool" });
    box.id = id;
    const wrap = element("div", { class: "field check" });
    wrap.append(box, element("label", { for: id }, words(fact.name)));
    return wrap;
  }
  if (fact.kind === "choice") {
    const control = select(fact.name, [["", "—"], ...fact.choices.map((c) => [c, c])]);
    control.dataset.fact = "choice";
    return field(id, words(fact.name), control);
  }
  const control = element("input", { name: fact.name, autocomplete: "off" });
  if (fact.kind === "int") {
    Object.assign(control, { type: "number", step: "1", inputMode: "numeric" });
    if (fact.minimum != null) control.min = String(fact.minimum);
    if (fact.maximum != null) control.max = String(fact.maximum);
  }
  control.dataset.fact = fact.kind;
  return field(id, `${words(fact.name)} (optional)`, control);
}

/** Fill `box` with the fields of a `kind` (hit, heal, check, choice) on `character`; `rules`
 * is the ruleset's summary, `roster` the characters `[{id, name}]` in turn order. */
export function fillForm(box, kind, character, rules, roster) {
  box.replaceChildren();
  box.dataset.kind = kind;
  const who = select("character", people(roster), character);
  if (kind === "hit" || kind === "heal") {
    const shape = KINDS[kind];
    box.append(field("act-target", "On", who));
    const amount = element("input", {
      name: shape.amount, type: "number", min: "0", step: "1", inputmode: "numeric", required: "",
    });
    box.append(field("act-amount", shape.amountLabel, amount));
    const by = select(shape.by, [["", "nobody named"], ...people(roster)]);
    box.append(field("act-by", `${shape.byLabel} (optional)`, by));
    if (kind === "heal") {
      const means = element("input", { name: "means", autocomplete: "off", list: "act-means-list" });
      const list = element("datalist", { id: "act-means-list" });
      for (const name of rules.heal_means ?? []) list.append(element("option", { value: name }));
      box.append(field("act-means", "Means (optional)", means), list);
    }
    for (const fact of rules[shape.facts] ?? []) box.append(factField(fact));
    return;
  }
  box.append(field("act-character", "Who", who));
  if (kind === "check") {
    box.append(field("act-check", "Check", select("check", (rules.checks ?? []).map((c) => [c, words(c)]))));
    const bonus = element("input", { name: "bonus", type: "number", step: "1", inputmode: "numeric" });
    box.append(field("act-bonus", "Added to the die (optional)", bonus));
  } else {
    box.append(field("act-option", "Chooses", select("option", (rules.choices ?? []).map((c) => [c, words(c)]))));
  }
}

/** The kinds of form a ruleset has beside hit and heal: `check` and `choice` when it declares
 * any. */
export function otherKinds(rules) {
  return [...((rules.checks ?? []).length ? ["check"] : []), ...((rules.choices ?? []).length ? ["choice"] : [])];
}

export const formTitle = (kind, name) =>
  ({ hit: `Hit ${name}`, heal: `Heal ${name}`, check: `A check for ${name}`, choice: `${name} chooses` })[kind];

/** The event the form says, as a log holds it (no field it left empty), or `{error}`. */
export function readForm(box) {
  const kind = box.dataset.kind;
  const value = (name) => box.querySelector(`[name="${name}"]`)?.value.trim() ?? "";
  const event = { type: kind };
  if (kind === "hit" || kind === "heal") {
    const shape = KINDS[kind];
    event.target = value("character");
    const amount = value(shape.amount);
    if (!/^[0-9]+$/.test(amount)) return { error: `${shape.amountLabel}: a whole number, 0 or more` };
    event[shape.amount] = Number(amount);
    if (value(shape.by)) event[shape.by] = value(shape.by);
    if (kind === "heal" && value("means")) event.means = value("means");
    for (const input of box.querySelectorAll("[data-fact]")) {
      const kindOf = input.dataset.fact;
      if (kindOf === "bool") {
        if (input.checked) event[input.name] = true;
      } else if (input.value.trim() !== "") {
        event[input.name] = kindOf === "int" ? Number(input.value) : input.value.trim();
      }
    }
    return { event };
  }
  event.character = value("character");
  if (kind === "check") {
    event.check = value("check");
    if (value("bonus") !== "" && Number(value("bonus")) !== 0) event.bonus = Number(value("bonus"));
  } else {
    event.option = value("option");
  }
  return { event };
}
