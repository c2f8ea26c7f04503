//! Every op on every data type ort reports for it, against the cpu backend: the shared cases
//! (odd sizes, broadcasting, options, int4/uint4 and 64-bit integers).

mod common;

use common::cases::cases;
use common::{mismatch, ort};
use webnn_core::{op_support_limits, Backend, DataTypeSet, OpKind};
use webnn_cpu::CpuBackend;

#[test]
fn every_op_on_every_supported_type_matches_the_cpu_backend() {
    let limits = op_support_limits(&ort().capabilities());
    let mut failures = Vec::new();
    let mut graphs = 0;
    for &kind in OpKind::ALL {
        let slot = kind.slots()[0].name;
        let wanted = DataTypeSet(
            kind.slots()[0].data_types.0
                & limits
                    .op(kind)
                    .iter()
                    .find(|(s, _)| *s == slot)
                    .map(|(_, l)| l.data_types.0)
                    .unwrap_or(0),
        );
        let mut covered = DataTypeSet::NONE;
        for t in wanted.iter() {
            for case in cases(kind, t) {
                covered = covered | DataTypeSet(1 << t as u16);
                graphs += 1;
                let feeds: Vec<(&str, &webnn_core::HostTensor)> =
                    case.feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
                let got = ort()
                    .compile(&case.graph)
                    .and_then(|mut e| e.dispatch(&feeds));
                let want = CpuBackend
                    .compile(&case.graph)
                    .and_then(|mut e| e.dispatch(&feeds));
                match (got, want) {
                    (Ok(got), Ok(want)) => {
                        // Linear resampling to an integer type rounds a value computed in
                        // float32 here and in f64 there: a result within an ulp of .5 may
                        // round either way.
                        let slack = u8::from(kind == OpKind::Resample2d);
                        for ((name, g), (_, w)) in got.iter().zip(&want) {
                            if let Some(why) = mismatch(g, w, slack) {
                                failures.push(format!("{}: {name}: {why}", case.name));
                            }
                        }
                    }
                    (got, want) => failures.push(format!(
                        "{}: ort {:?} / cpu {:?}",
                        case.name,
                        got.err(),
                        want.err()
                    )),
                }
            }
        }
        assert_eq!(
            covered, wanted,
            "{kind:?}: the cases cover {covered}, the backend reports {wanted}"
        );
    }
    println!("{graphs} graphs");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
