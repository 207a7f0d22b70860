"""Seed 002 (Acquaviva, Lattanzi & Bogliolo, *Power-Aware Network Swapping for Wireless Palmtop
PCs*): Table 1, the cost of swapping one 4096-byte page, from the catalog's swap devices.

A read-only swap is one page read; a write-back swap is a page written out and a page read in.
Each comes from the device's service model (``Device.service_cost``): nothing here knows the
table's numbers except to print them beside ours.
"""

from __future__ import annotations

from ..devices import load_device

PAGE_BYTES = 4096

#: (device, protocol, catalog entry) for each row of Table 1.
ROWS = (
    ("cf", "local", "compaq-sandisk-cf-64mb"),
    ("hd", "local", "ibm-microdrive-340mb"),
    ("nic-cisco", "nbd", "cisco-aironet-350-swap"),
    ("nic-cisco", "nfs", "cisco-aironet-350-swap-nfs"),
    ("nic-compaq", "nbd", "compaq-wlan-swap"),
    ("nic-compaq", "nfs", "compaq-wlan-swap-nfs"),
)

#: Seed 002 Table 1 as printed: read-only (ms, mJ, mW), write-back (ms, mJ, mW).
SEED_TABLE1 = {
    ("cf", "local"): ((4.1, 0.201, 49), (8.2, 0.402, 49)),
    ("hd", "local"): ((3.0, 1.911, 637), (6.4, 4.061, 637)),
    ("nic-cisco", "nbd"): ((7.0, 5.934, 848), (14.0, 10.319, 735)),
    ("nic-cisco", "nfs"): ((8.5, 6.123, 720), (14.6, 10.516, 720)),
    ("nic-compaq", "nbd"): ((8.0, 5.626, 578), (15.0, 8.599, 573)),
    ("nic-compaq", "nfs"): ((10.0, 5.243, 524), (22.0, 10.672, 485)),
}


def swap_cost(workloads=None, plot=None) -> list[dict]:
    """One row per (device, protocol): the per-page cost from the catalog, and the seed's."""
    rows = []
    for device, protocol, entry in ROWS:
        d = load_device(entry)
        read_s, read_j = d.service_cost(PAGE_BYTES, False)
        write_s, write_j = d.service_cost(PAGE_BYTES, True)
        back_s, back_j = read_s + write_s, read_j + write_j
        (sr_ms, sr_mj, sr_mw), (sw_ms, sw_mj, sw_mw) = SEED_TABLE1[(device, protocol)]
        rows.append({
            "device": device, "protocol": protocol, "catalog": entry,
            "read_only_time_s": read_s, "read_only_energy_j": read_j, "read_only_power_w": read_j / read_s,
            "write_back_time_s": back_s, "write_back_energy_j": back_j, "write_back_power_w": back_j / back_s,
            "seed_read_only": {"time_s": sr_ms / 1e3, "energy_j": sr_mj / 1e3, "power_w": sr_mw / 1e3},
            "seed_write_back": {"time_s": sw_ms / 1e3, "energy_j": sw_mj / 1e3, "power_w": sw_mw / 1e3},
        })
    return rows


EXPERIMENTS = {"swap-cost": swap_cost}
"""Seed 002 experiments by name."""
