//! A backend whose `opSupportLimits()` lacks a data type: cases without
//! `castToSupportedType` that need it are skipped, cases with it are cast around the graph.
#![cfg(not(target_arch = "wasm32"))]

use webnn_core::{Backend, Capabilities, DataType, DataTypeSet, Executable, Graph, Result};
use webnn_wpt::conformance::{compatible_type, run_file};
use webnn_wpt::native::{default_wpt_dir, load_dir};
use webnn_wpt::{CaseResult, Status};

/// The cpu backend, claiming not to support uint8.
struct NoUint8;

impl Backend for NoUint8 {
    fn name(&self) -> &'static str {
        "no-uint8"
    }
    fn capabilities(&self) -> Capabilities {
        let all = DataTypeSet::ALL;
        Capabilities { data_types: DataTypeSet(all.0 & !DataTypeSet::U8.0), ..Capabilities::default() }
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        // Every uint8 tensor at the graph's boundary must have been cast away.
        let boundary = graph.inputs.iter().chain(&graph.outputs).map(|(_, o)| graph.desc(*o).data_type);
        assert!(boundary.clone().all(|t| t != DataType::Uint8), "uint8 reached the backend boundary");
        webnn_cpu::CpuBackend.compile(graph)
    }
}

fn run(backend: &dyn Backend, file: &str) -> Vec<CaseResult> {
    let files = match load_dir(&default_wpt_dir()) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    let json = files.conformance.iter().find(|(n, _)| n == file).map(|(_, j)| j.clone()).unwrap_or_default();
    let mut out = Vec::new();
    run_file(backend, file, &json, &|_| true, &mut |r| out.push(r));
    out
}

#[test]
fn unsupported_types_skip_or_cast() {
    let skipped = run(&NoUint8, "logical_and");
    assert!(!skipped.is_empty());
    assert!(skipped.iter().all(|r| r.status == Status::Skip), "{skipped:?}");

    for file in ["quantizeLinear", "dequantizeLinear"] {
        let cpu = run(&webnn_cpu::CpuBackend, file);
        let restricted = run(&NoUint8, file);
        assert_eq!(cpu.len(), restricted.len());
        for (a, b) in cpu.iter().zip(&restricted) {
            // Casting around the graph gives the same verdicts.
            assert_eq!((a.status, &a.name), (b.status, &b.name), "{}", b.message);
        }
    }
}

#[test]
fn compatible_types_are_wider() {
    let all = DataTypeSet::ALL;
    assert_eq!(compatible_type(DataType::Uint8, DataTypeSet(all.0 & !DataTypeSet::U8.0)), Some(DataType::Int32));
    assert_eq!(compatible_type(DataType::Int4, all), Some(DataType::Int8));
    assert_eq!(compatible_type(DataType::Float16, DataTypeSet::F32), Some(DataType::Float32));
    assert_eq!(compatible_type(DataType::Float32, DataTypeSet::F16), None);
}
