"""--device auto: a disk identified from what sysfs says of it (a tree built here, as Linux lays it
out), matched to the catalog by model or given its class default, named as such."""

import json

import pytest

import idlewise
from idlewise import IdlewiseError
from idlewise.cli import main
from idlewise.identify import SYSFS_ENV, identify

from conftest import TRACES


def disk(root, name, model, rotational):
    block = root / "block" / name
    (block / "device").mkdir(parents=True)
    (block / "queue").mkdir()
    (block / "device" / "model").write_text(model + "\n")
    (block / "queue" / "rotational").write_text(f"{rotational}\n")


def test_a_known_model_gets_its_catalog_entry(tmp_path):
    disk(tmp_path, "sdb", "ST500NM0011    ", 1)  # ATA pads model strings with spaces
    found = identify("sdb", sysfs=str(tmp_path))
    assert (found.catalog, found.matched, found.kind) == ("seagate-constellation-es1-500gb", True, "hdd")
    assert found.describe() == "/dev/sdb: seagate-constellation-es1-500gb, catalog entry for model 'ST500NM0011'"


@pytest.mark.parametrize("name, model, rotational, kind, entry", [
    ("sdc", "WDC WD80EFAX-68KNBN0", 1, "hdd", "wd-red-plus-4tb"),
    ("sdd", "CT500MX500SSD1", 0, "sata-ssd", "wd-blue-3d-nand-500gb"),
    ("nvme0n1", "Samsung SSD 970 EVO Plus 1TB", 0, "nvme", "samsung-pm981-1tb"),
])
def test_an_unknown_model_gets_its_class_default_named_as_such(tmp_path, monkeypatch, name, model, rotational, kind, entry):
    monkeypatch.setattr("idlewise.identify._nvme_power", lambda controller: (True, [0, 0, 0, 2000, 22000]))
    disk(tmp_path, name, model, rotational)
    found = identify(name, sysfs=str(tmp_path))
    assert (found.kind, found.catalog, found.matched) == (kind, entry, False)
    assert f"the {kind} class default (no catalog entry for model '{model}')" in found.describe()
    assert (found.apst, found.exit_latencies_us) == ((True, [0, 0, 0, 2000, 22000]) if kind == "nvme" else (None, []))


def test_a_disk_this_machine_does_not_have_is_a_clear_error(tmp_path):
    with pytest.raises(IdlewiseError, match="this machine has no disk 'sdz'.*--device NAME"):
        identify("sdz", sysfs=str(tmp_path))


def test_advise_auto_refuses_a_virtual_disk_and_says_why(tmp_path, monkeypatch, capsys):
    # A virtio disk reports rotational=1 and no model: it once got a 4 TB NAS disk's advice.
    disk(tmp_path, "vda", "", 1)
    disk(tmp_path, "sdc", "QEMU HARDDISK", 1)
    monkeypatch.setenv(SYSFS_ENV, str(tmp_path))
    assert identify("vda", sysfs=str(tmp_path)).virtual == "a paravirtual disk (virtio or Xen)"
    assert "emulated disk (model 'QEMU HARDDISK')" in identify("sdc", sysfs=str(tmp_path)).virtual
    build_vm = str(TRACES / "diskstats" / "build-vm.diskstats")
    assert main(["advise", build_vm, "--disk", "vda", "--device", "auto"]) == 2
    err = capsys.readouterr().err
    assert "/dev/vda is a paravirtual disk" in err and "record and advise there" in err


def test_advise_auto_identifies_the_recorded_disk_and_says_what_stands_in(tmp_path, monkeypatch, capsys):
    disk(tmp_path, "sdb", "WDC WD80EFAX-68KNBN0", 1)
    monkeypatch.setenv(SYSFS_ENV, str(tmp_path))
    recording = tmp_path / "sdb.diskstats"
    recording.write_text("".join(f"{t} 8 16 sdb {t // 30} 0 {t // 30 * 8} 0 0 0 0 0 0 0 0\n" for t in range(0, 3600, 10)))
    assert main(["advise", str(recording), "--disk", "sdb", "--device", "auto", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["device"] == "wd-red-plus-4tb"
    assert advice["device_identified"]["model"] == "WDC WD80EFAX-68KNBN0" and advice["device_identified"]["matched"] is False
    assert any("no catalog entry for model 'WDC WD80EFAX-68KNBN0'" in w for w in advice["warnings"])
    assert main(["advise", str(recording), "--disk", "sdb", "--device", "auto"]) == 0
    captured = capsys.readouterr()
    assert "--device auto: /dev/sdb: wd-red-plus-4tb, the hdd class default" in captured.err


def test_advice_without_a_disk_name_never_guesses_one():
    trace = idlewise.Trace.from_arrays([0.0, 1.0, 4000.0, 4001.0, 9000.0, 9001.0], [4096] * 6)  # long gaps: spin down
    from idlewise.advisor import advise

    advice = advise(trace, "hitachi-travelstar-5k320", progress=False)
    assert advice["commands"][0]["command"] == "hdparm -S 1 /dev/DISK" and "-a DISK" in advice["commands"][1]["command"]
    assert any("does not name its disk" in w for w in advice["warnings"])


def system_tree(root):
    """A machine: sda (sda1 /boot, sda2 under LVM's vg-root on /), nvme0n1 (swap partition),
    and sdb, which holds nothing."""
    disk(root, "sda", "ST500NM0011", 1)
    disk(root, "sdb", "ST500NM0011", 1)
    disk(root, "nvme0n1", "Samsung SSD 970 EVO Plus 1TB", 0)
    for parent, part in (("sda", "sda1"), ("sda", "sda2"), ("nvme0n1", "nvme0n1p1")):
        (root / "block" / parent / part).mkdir()
    dm = root / "block" / "dm-0"
    (dm / "slaves" / "sda2").mkdir(parents=True)
    (dm / "dm").mkdir()
    (dm / "dm" / "name").write_text("vg-root\n")
    proc = root / "proc"
    proc.mkdir()
    (proc / "mounts").write_text("/dev/mapper/vg-root / ext4 rw,relatime 0 0\n/dev/sda1 /boot ext4 rw 0 0\n"
                                 "tmpfs /run tmpfs rw 0 0\n")
    (proc / "swaps").write_text("Filename\tType\tSize\tUsed\tPriority\n/dev/nvme0n1p1  partition\t8388604\t0\t-2\n")
    return proc


def test_the_disks_holding_root_and_swap_are_found_through_partitions_and_lvm(tmp_path):
    from idlewise.identify import system_roles

    proc = system_tree(tmp_path)
    roles = {d: system_roles(d, sysfs=str(tmp_path), procfs=str(proc)) for d in ("sda", "sdb", "nvme0n1")}
    assert roles == {"sda": ["the root file system"], "sdb": [], "nvme0n1": ["active swap (/dev/nvme0n1p1)"]}
    # A swap file lives on the file system that holds it; a container's overlay root is no disk.
    (proc / "swaps").write_text("Filename\tType\tSize\tUsed\tPriority\n/boot/swapfile file 1024 0 -2\n")
    assert system_roles("sda", sysfs=str(tmp_path), procfs=str(proc)) == ["the root file system", "active swap (/boot/swapfile)"]
    (proc / "mounts").write_text((proc / "mounts").read_text() + "overlay / overlay rw 0 0\n")
    assert system_roles("sda", sysfs=str(tmp_path), procfs=str(proc)) == ["active swap (/boot/swapfile)"]


def test_advise_auto_says_plainly_what_applies_to_a_disk_holding_root(tmp_path, monkeypatch, capsys):
    from idlewise.identify import PROCFS_ENV

    proc = system_tree(tmp_path)
    monkeypatch.setenv(SYSFS_ENV, str(tmp_path))
    monkeypatch.setenv(PROCFS_ENV, str(proc))
    recording = tmp_path / "sda.diskstats"
    recording.write_text("".join(f"{t} 8 0 sda {t // 900} 0 {t // 900 * 8} 0 0 0 0 0 0 0 0\n" for t in range(0, 86400, 60)))
    assert main(["advise", str(recording), "--disk", "sda", "--device", "auto", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["device_identified"]["holds"] == ["the root file system"]
    assert any("/dev/sda holds the root file system" in w and "hdparm -S 0 /dev/sda" in w for w in advice["warnings"])


def test_the_advice_says_how_to_make_it_last_and_what_undoes_it(capsys, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{t},0,4096,R\n" for t in range(0, 86400, 3600)))
    assert main(["advise", str(trace), "--disk", "sdb", "--device", "hitachi-travelstar-5k320", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    value = advice["hdparm_S"]
    assert advice["advised"] and value
    assert any(f"spindown_time = {value}" in step["command"] and "/etc/hdparm.conf" in step["what"] for step in advice["persist"])
    assert any(f'KERNEL=="sdb", RUN+="/usr/sbin/hdparm -S {value} /dev/%k"' in step["command"] for step in advice["persist"])
    assert any("-n standby" in step["what"] for step in advice["defeated_by"]) and any(step["command"] == "hdparm -B 127 /dev/sdb" for step in advice["defeated_by"])
    assert main(["advise", str(trace), "--disk", "sdb", "--device", "hitachi-travelstar-5k320"]) == 0
    out = capsys.readouterr().out
    assert "make it last" in out and "what commonly undoes it" in out and f"spindown_time = {value}" in out


def test_nvme_advice_for_a_disk_that_is_not_an_nvme_namespace_names_no_controller(capsys, tmp_path):
    # The build VM's recording with its disk called sdb (a SATA name, not an emulation's).
    recording = tmp_path / "sdb.diskstats"
    recording.write_text((TRACES / "diskstats" / "build-vm.diskstats").read_text().replace(" vda ", " sdb "))
    assert main(["advise", str(recording), "--stream", "sdb", "--device", "samsung-pm981-1tb", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["advised"] and advice["commands"] and advice["persist"]
    assert not any("nvme0" in (c["command"] or "") + c["what"] for c in advice["commands"] + advice["persist"]), advice["commands"]
    assert any("sdb, which is not an NVMe namespace" in w for w in advice["warnings"])
    # Named vda, the recording's own name, it is a virtio disk: no command at all.
    assert main(["advise", str(TRACES / "diskstats" / "build-vm.diskstats"), "--stream", "vda", "--device", "samsung-pm981-1tb",
                 "--json"]) == 0
    virtio = json.loads(capsys.readouterr().out)
    assert virtio["emulated"] and virtio["commands"] == [] and virtio["persist"] == []
