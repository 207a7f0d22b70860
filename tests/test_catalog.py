"""Every catalog device loads, and every value in it says where it comes from."""

import tomllib
from importlib import resources

import pytest

import idlewise

NAMES = idlewise.catalog_names()


def test_catalog_has_the_seed_devices_and_modern_disks():
    for name in ["hitachi-microdrive-1gb", "ibm-microdrive-340mb", "compaq-sandisk-cf-64mb", "cisco-350",
                 "cisco-aironet-350-swap", "compaq-wlan-swap", "ibm-mems-seed004", "hitachi-travelstar-5k320",
                 "ibm-ultrastar-36z15"]:
        assert name in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_value_has_a_source_or_an_assumption(name):
    raw = tomllib.loads((resources.files("idlewise") / "catalog" / f"{name}.toml").read_text())
    assert raw["source"]
    for section in raw["modes"] + raw.get("transitions", []) + [raw["service"]] + ([raw["limits"]] if "limits" in raw else []):
        assert section.get("source") or section.get("assumed"), f"{name}: {section}"
    device = idlewise.load_device(name)
    assert device.name == name


def test_load_device_by_path(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text((resources.files("idlewise") / "catalog" / "cisco-350.toml").read_text())
    assert idlewise.load_device(str(path)).name == "cisco-350"


def test_a_policy_move_takes_the_direct_transition_on_the_5k320():
    # Issue 7 §2.2: performance idle -> standby is a direct transition (0.5 s, 0.85 J); the chain
    # through low-power idle is cheaper (0.815 J) but a policy's move takes the direct one.
    d = idlewise.load_device("hitachi-travelstar-5k320")
    assert d.route("performance-idle", "standby") == pytest.approx((0.5, 0.85))


# --- Sources a reader can find --------------------------------------------------------------

import re  # noqa: E402

from idlewise._package import package_text, toml_names  # noqa: E402
from idlewise.references import cited, references, strings_of  # noqa: E402

ENTRIES = [(folder, name) for folder in (("catalog",), ("catalog", "hybrid")) for name in toml_names(*folder)]

#: What once stood for a source and means nothing to a reader: the build's own file names for the
#: papers, its notes (ALGORITHMS.md), and "seed 002" or a bare "002 Table 2".
PRIVATE_NAMES = re.compile(r"\d{3}_[0-9a-f]{16}|ALGORITHMS\.md|\b[Ss]eeds?\b(?! \d{3}-)|(?<![\w.-])00[0-4] (Table|Figure|section)")


@pytest.mark.parametrize("folder, name", ENTRIES)
def test_every_source_is_named_so_a_reader_can_find_it(folder, name):
    """Every text of a catalog entry cites documents a reader can look up: none names the
    build's files, and each entry cites at least one document of references.toml."""
    raw = tomllib.loads(package_text(*folder, f"{name}.toml"))
    texts = [t for t in strings_of(raw) if t != raw.get("name")]
    private = [t for t in texts if PRIVATE_NAMES.search(t)]
    assert not private, private
    assert cited(texts), f"{name} cites no document of references.toml"


def test_every_reference_is_whole_and_used():
    """A paper gives authors, title, venue and year; a datasheet its maker, document and date,
    or says the date was not recorded; a web page its address. Each is cited somewhere."""
    used = {r.key for folder, name in ENTRIES for r in cited(strings_of(tomllib.loads(package_text(*folder, f"{name}.toml"))))}
    keys = [r.key for r in references()]
    assert len(keys) == len(set(keys))
    for ref in references():
        assert re.search(r"\b(19|20)\d\d\b", ref.cite) or "date not recorded" in ref.cite or "https://" in ref.cite, ref
        assert ref.key in used, f"{ref.key} is cited by no catalog entry"


def test_devices_lists_the_references_an_entry_cites(capsys):
    from idlewise.cli import main

    assert main(["devices", "sandisk-ultra-ii-cf"]) == 0
    out = capsys.readouterr().out
    references_part = out[out.index("\nreferences:\n"):]
    for key in ("Bisson & Brandt 2007", "SanDisk CF OEM manual", "Galbraith 2004"):
        assert f"  {key}: " in references_part
    assert "Flushing Policies for NVCache Enabled Hard Disks" in references_part
