"""The packages of the wheel, found, never listed: the three layers (DESIGN.md section 1) are the
folders events/, core/ and replays/, installed as woundlog.events, woundlog.core and
woundlog.replays. pyproject.toml cannot say "every package under this folder, under this
prefix", so setuptools' own finder walks each folder here; everything else is in pyproject.toml.
A folder of files and no code (the pages, the bundled fights) is found too, as a namespace
package, and its files travel by the kinds pyproject.toml's package-data names."""

from setuptools import find_namespace_packages, setup

LAYERS = ("events", "core", "replays")
CACHES = ["__pycache__", "*.__pycache__"]

setup(
    package_dir={f"woundlog.{layer}": layer for layer in LAYERS},
    packages=[
        f"woundlog.{layer}{below}"
        for layer in LAYERS
        for below in [
            "",
            *(f".{found}" for found in find_namespace_packages(layer, exclude=CACHES)),
        ]
    ],
)
