//! A run set as columns (`RunTable`) holds what the runs' reports said, run by run, however it
//! was made: pushed run by run, joined from parts, or put in another order.

mod common;

use idlewise_core::evaluate_on;
use idlewise_core::policy::PolicySpec;
use idlewise_core::run_table::{RunTable, Values};
use idlewise_core::{Device, ReplayOptions, Report, TraceView};
use proptest::prelude::*;

fn catalog(name: &str) -> Device {
    let text = std::fs::read_to_string(format!("{}/../../python/idlewise/catalog/{name}.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    Device::from_toml(&text, name).unwrap()
}

fn reports(device: &Device, gaps: &[f64], keep: bool) -> Vec<Report> {
    let time_s: Vec<f64> = gaps.iter().scan(0.0, |t, g| { *t += g; Some(*t) }).collect();
    let n = time_s.len();
    let offsets: Vec<i64> = (0..n as i64).map(|i| (i * 7919 % 1000) * 4096).collect();
    let (sizes, writes) = (vec![4096i64; n], (0..n).map(|i| (i % 3 == 0) as u8).collect::<Vec<u8>>());
    let trace = TraceView::new(&time_s, &offsets, &sizes, &writes).unwrap();
    let specs: Vec<PolicySpec> = ["timeout:1s", "timeout:5s", "oracle", "experts"].iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
    let opts = ReplayOptions { keep_per_request: keep, fold_offsets: true, timeline_s: keep.then_some((0.0, 30.0)), ..Default::default() };
    evaluate_on(&trace, device, &specs, &opts, None, 1).unwrap()
}

proptest! {
    #![proptest_config(common::config(12))]

    #[test]
    fn a_table_holds_its_reports_however_it_was_made(
        gaps in prop::collection::vec(prop_oneof![0.001f64..0.05, 0.5f64..40.0], 2..120),
        device in 0usize..3,
        keep in any::<bool>(),
        cut in 0usize..8,
        seed in any::<u64>(),
    ) {
        let device = catalog(["hitachi-travelstar-5k320", "cmu-mems-g2", "cisco-350"][device]);
        // Two traces' runs: a set of sets, as a streamed file's volumes.
        let mut all = reports(&device, &gaps, keep);
        all.extend(reports(&device, &gaps[..gaps.len() / 2 + 1], !keep));
        let table = RunTable::of(&device, all.clone()).unwrap();
        prop_assert_eq!(table.runs, all.len());
        for (i, r) in all.iter().enumerate() {
            prop_assert_eq!(&table.policy.distinct[table.policy.codes[i] as usize], &r.run.policy);
            let floats = |key: &str| match table.column(key) { Some(Values::Floats(v)) => v[i].to_bits(), other => panic!("{key}: {other:?}") };
            prop_assert_eq!(floats("energy_j"), r.run.energy_j.to_bits());
            prop_assert_eq!(floats("mean_response_s"), r.run.mean_response_s.to_bits());
            match table.column("wakeups") { Some(Values::Counts(v)) => prop_assert_eq!(v[i], r.run.wakeups), other => panic!("{other:?}") }
            match table.column("energy_vs_oracle") {
                Some(Values::Maybe(v, missing)) => prop_assert_eq!((missing[i], v[i].to_bits()), (r.energy_vs_oracle.is_none(), r.energy_vs_oracle.unwrap_or(f64::NAN).to_bits())),
                other => panic!("{other:?}"),
            }
            let modes = table.mode_names.len();
            prop_assert_eq!(&table.energy_by_mode_j[i * modes..(i + 1) * modes], &r.run.energy_by_mode_j[..]);
            let hops = table.hops.len();
            let taken: Vec<(String, String, u64)> = table.hops.iter().zip(&table.transitions[i * hops..(i + 1) * hops])
                .filter_map(|((from, to), count)| count.map(|c| (from.clone(), to.clone(), c))).collect();
            let mut said = r.run.transition_counts.clone();
            said.sort_by_key(|(from, to, _)| table.hops.iter().position(|(f, t)| f == from && t == to));
            prop_assert_eq!(taken, said);
            prop_assert_eq!(table.per_request.iter().any(|(run, _)| *run == i), r.run.per_request.is_some());
        }
        // Joined from two parts.
        let at = cut.min(all.len());
        let mut joined = RunTable::of(&device, all[..at].to_vec()).unwrap();
        joined.append(RunTable::of(&device, all[at..].to_vec()).unwrap());
        prop_assert_eq!(format!("{joined:?}"), format!("{table:?}"));
        // Put in another order: the table of the reports in that order.
        let mut order: Vec<usize> = (0..all.len()).collect();
        let mut state = seed | 1;
        for k in (1..order.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            order.swap(k, (state % (k as u64 + 1)) as usize);
        }
        let shuffled: Vec<Report> = order.iter().map(|&i| all[i].clone()).collect();
        prop_assert_eq!(format!("{:?}", table.reordered(&order)), format!("{:?}", RunTable::of(&device, shuffled).unwrap()));
    }
}
