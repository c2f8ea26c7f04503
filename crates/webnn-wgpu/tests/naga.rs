//! Every kernel variant the crate can create is parsed by naga's WGSL front end, validated,
//! specialised with its pipeline constants and lowered to SPIR-V, without a GPU.

use naga::back::PipelineConstants;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use std::collections::BTreeMap;
use webnn_wgpu::kernel::{BinaryOp, KernelKey, ModuleKey, ParamBinding, ReduceOp, UnaryOp, F16};
use webnn_wgpu::params::Params;

fn parse(key: &str, source: &str) -> naga::Module {
    naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{key}: WGSL parse error:\n{}", e.emit_to_string(source)))
}

fn validate(key: &str, module: &naga::Module, source: &str, f16: bool) -> naga::valid::ModuleInfo {
    let caps = if f16 {
        Capabilities::SHADER_FLOAT16
    } else {
        Capabilities::empty()
    };
    Validator::new(ValidationFlags::all(), caps | Capabilities::SUBGROUP)
        .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
        .subgroup_operations(naga::valid::SubgroupOperationSet::all())
        .validate(module)
        .unwrap_or_else(|e| panic!("{key}: invalid module:\n{}", e.emit_to_string(source)))
}

// Every kernel variant, in two halves that the test harness runs on two threads (30.4 s as
// one test, 19.6 s as two on a 2-core machine, before the products' modules doubled with
// `ProductIo::offset`).
#[test]
fn every_kernel_variant_validates_and_lowers_to_spirv_first_half() {
    kernel_variants(0);
}

#[test]
fn every_kernel_variant_validates_and_lowers_to_spirv_second_half() {
    kernel_variants(1);
}

/// The kernel variants whose module is at an even (`half` 0) or odd (1) position among all
/// the modules, so that each module is validated in one half only.
fn kernel_variants(half: usize) {
    let keys = KernelKey::all();
    let mut modules: BTreeMap<ModuleKey, (String, naga::Module, naga::valid::ModuleInfo)> =
        BTreeMap::new();
    // Each key on devices without and with shader-f16 (the module differs where float16 is
    // read) and without and with subgroups (the module differs where lanes reduce).
    let variants = [(false, 0), (true, 0), (false, 8), (true, 8)];
    let all: Vec<(&KernelKey, ModuleKey)> = keys
        .iter()
        .flat_map(|k| variants.map(|v| (k, v)))
        .filter_map(|(key, (native, subgroup))| {
            let mk = key.module_for(native, subgroup);
            let skip = (native && mk.f16 == F16::Packed) || (subgroup > 0 && mk.subgroup == 0);
            (!skip).then_some((key, mk))
        })
        .collect();
    let order: BTreeMap<ModuleKey, usize> = all
        .iter()
        .map(|(_, mk)| *mk)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .enumerate()
        .map(|(i, mk)| (mk, i))
        .collect();
    for (key, mk) in all.into_iter().filter(|(_, mk)| order[mk] % 2 == half) {
        let (source, module, info) = modules.entry(mk).or_insert_with(|| {
            let source = mk.source();
            // The layout (cache.rs) binds the block and input 0 as the module declares them.
            let storage = mk.body.params() == ParamBinding::Storage;
            let declares = |binding: u32| source.contains(&format!("@group(0) @binding({binding}) var<uniform>"));
            assert_eq!(declares(0), !storage, "{mk:?}: parameter binding");
            assert_eq!(declares(2), mk.body.uniform_input(), "{mk:?}: input binding");
            assert_eq!(key.uniform_input().is_some(), mk.body.uniform_input(), "{mk:?}: input binding size");
            let name = format!("{mk:?}");
            let module = parse(&name, &source);
            let info = validate(&name, &module, &source, mk.f16 == F16::Native);
            (source, module, info)
        });
        let mut constants = PipelineConstants::default();
        for (name, value) in key.constants() {
            constants.insert(name.to_owned(), value);
        }
        let label = key.label();
        let (specialised, spec_info) = naga::back::pipeline_constants::process_overrides(
            module,
            info,
            Some((naga::ShaderStage::Compute, "main")),
            &constants,
        )
        .unwrap_or_else(|e| panic!("{label}: overrides: {e}\n{source}"));
        let pipeline = naga::back::spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: "main".into(),
        };
        naga::back::spv::write_vec(
            &specialised,
            &spec_info,
            &naga::back::spv::Options::default(),
            Some(&pipeline),
        )
        .unwrap_or_else(|e| panic!("{label}: SPIR-V: {e}"));
    }
    // The enumeration covers every op on every type the ops list, and casts between all types
    // (each half half of the modules).
    assert!(keys.len() > 300, "{} keys", keys.len());
    assert!(modules.len() > 90, "{} modules", modules.len());
}

/// The numeric value of a `const NAME: u32 = Nu;` of a module.
fn constants(module: &naga::Module) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for (_, c) in module.constants.iter() {
        if let (Some(name), naga::Expression::Literal(naga::Literal::U32(v))) =
            (&c.name, &module.global_expressions[c.init])
        {
            out.insert(name.clone(), *v);
        }
    }
    out
}

#[test]
fn op_codes_agree_with_codes_wgsl() {
    let source = include_str!("../shaders/codes.wgsl");
    let module = parse("codes.wgsl", source);
    let codes = constants(&module);
    for op in UnaryOp::ALL {
        assert_eq!(codes.get(op.wgsl_name()), Some(&op.code()), "{op:?}");
    }
    for op in BinaryOp::ALL {
        assert_eq!(codes.get(op.wgsl_name()), Some(&op.code()), "{op:?}");
    }
    for op in ReduceOp::ALL {
        assert_eq!(codes.get(op.wgsl_name()), Some(&op.code()), "{op:?}");
    }
    assert_eq!(
        codes.len(),
        UnaryOp::ALL.len() + BinaryOp::ALL.len() + ReduceOp::ALL.len()
    );
}

/// Checks WGSL struct `name` of a module against the Rust block's size and field offsets.
fn check_layout(module_of: KernelKey, name: &str, size: usize, rust: Vec<(&str, usize)>) {
    let source = module_of.module().source();
    let module = parse(name, &source);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("struct {name}"));
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        panic!("{name} is not a struct")
    };
    assert_eq!(*span as usize, size, "{name}");
    assert_eq!(layouter[handle].size as usize, size, "{name}");
    assert_eq!(members.len(), rust.len(), "{name}");
    for (m, (field, offset)) in members.iter().zip(rust) {
        assert_eq!(m.name.as_deref(), Some(field), "{name}");
        assert_eq!(m.offset as usize, offset, "{name}.{field}");
    }
}

#[test]
fn uniform_blocks_match_rust() {
    use webnn_core::DataType::Float32 as F;
    use webnn_wgpu::kernel::{KernelId, ReduceOp};
    use webnn_wgpu::params::{ConvParams, DepthwiseParams, MatmulParams, PoolParams, Rows};
    let key = |k| KernelKey::new(k, F, F);
    check_layout(
        key(KernelId::Binary(BinaryOp::Add)),
        Params::WGSL,
        size_of::<Params>(),
        Params::fields(),
    );
    let reduce = KernelId::Reduce {
        op: ReduceOp::Sum,
        lanes: 64,
    };
    check_layout(key(reduce), Rows::WGSL, size_of::<Rows>(), Rows::fields());
    let pool = KernelId::Pool {
        op: ReduceOp::Max,
        lanes: 4,
    };
    check_layout(
        key(pool),
        PoolParams::WGSL,
        size_of::<PoolParams>(),
        PoolParams::fields(),
    );
    let matmul = KernelId::Matmul {
        c: true,
        clamp: true,
        rows: 4,
    };
    check_layout(
        key(matmul),
        MatmulParams::WGSL,
        size_of::<MatmulParams>(),
        MatmulParams::fields(),
    );
    let conv = KernelId::Conv {
        transposed: false,
        bias: true,
        clamp: false,
        rows: 8,
    };
    check_layout(
        key(conv),
        ConvParams::WGSL,
        size_of::<ConvParams>(),
        ConvParams::fields(),
    );
    let dw = KernelId::Depthwise {
        bias: true,
        clamp: true,
    };
    check_layout(
        key(dw),
        DepthwiseParams::WGSL,
        size_of::<DepthwiseParams>(),
        DepthwiseParams::fields(),
    );
}

mod common;

/// Every kernel the test cases of every op and type lower to (recurrent ops expanded,
/// activations fused, as compile does) is among the keys validated above.
#[test]
fn every_supported_op_and_type_lowers_to_a_validated_key() {
    use webnn_core::{DataTypeSet, OpKind};
    use webnn_wgpu::lower::Lowering;
    let keys: std::collections::HashSet<KernelKey> = KernelKey::all().into_iter().collect();
    let mut checked = 0;
    for &kind in OpKind::ALL {
        let wanted = DataTypeSet(webnn_wgpu::supported(kind).0 & kind.slots()[0].data_types.0);
        for t in wanted.iter() {
            for case in common::cases::cases(kind, t) {
                let graph = webnn_core::passes::expand(&case.graph, &|_| true).expect("expand");
                let lowered = webnn_wgpu::lower_graph(&graph)
                    .unwrap_or_else(|e| panic!("{}: {e}", case.name));
                for l in lowered {
                    if let Lowering::Kernels(calls) = l {
                        for call in calls {
                            assert!(keys.contains(&call.key), "{}: {:?}", case.name, call.key);
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 800, "{checked}");
}

/// The generated part of every module, the typed preambles and loaders, against a checked-in snapshot.
/// `UPDATE_SNAPSHOTS=1 cargo test -p webnn-wgpu --test naga` rewrites it after a deliberate
/// change.
#[test]
fn typed_preambles_match_their_snapshot() {
    use webnn_wgpu::storage::Storage;
    let mut text = String::from("// Generated by src/storage.rs; checked by tests/naga.rs.\n");
    for t in webnn_core::DataTypeSet::ALL.iter() {
        text.push('\n');
        text.push_str(&Storage::of(t).preamble("in", "InT"));
        text.push_str(&Storage::of(t).loader(2, "a", false));
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/preambles.wgsl");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &text).expect("write snapshot");
    }
    let saved = std::fs::read_to_string(&path).expect("tests/snapshots/preambles.wgsl");
    assert_eq!(
        saved, text,
        "the generated preambles changed: review, then rerun with UPDATE_SNAPSHOTS=1"
    );
}
