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
