//! Flexible inputs in the graph model: dimension names and bounds, derived dimensions,
//! slices with dynamic sizes, pruning that keeps size-carrying inputs, and the in-place pairs.

use webnn_core::ops::{OpOptions, SliceOptions};
use webnn_core::{DataType, Dim, DimBindings, ErrorKind, GraphBuilder, OperandDescriptor};

const F: DataType = DataType::Float32;

fn dynamic(name: &str, max_size: u32) -> Dim {
    Dim::Dynamic { name: name.into(), max_size }
}

fn desc(shape: Vec<Dim>) -> OperandDescriptor {
    OperandDescriptor::with_dims(F, shape)
}

#[test]
fn names_and_bounds() {
    let mut b = GraphBuilder::new();
    let kind = |r: webnn_core::Result<webnn_core::Operand>| r.unwrap_err().kind;
    assert_eq!(kind(b.input("a", desc(vec![dynamic("past+1", 4)]))), ErrorKind::TypeError, "a derived name");
    assert_eq!(kind(b.input("a", desc(vec![dynamic("7up", 4)]))), ErrorKind::TypeError, "a leading digit");
    b.input("a", desc(vec![dynamic("seq", 8)])).unwrap();
    let e = b.input("b", desc(vec![dynamic("seq", 4)])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TypeError);
    assert!(e.to_string().contains("'seq'") && e.to_string().contains('b'), "{e}");
    b.input("c", desc(vec![dynamic("seq", 8), Dim::Static(2)])).unwrap();
}

#[test]
fn concat_along_a_dynamic_axis_derives_a_dimension() {
    let mut b = GraphBuilder::new();
    let past = b.input("past", desc(vec![dynamic("past", 15), Dim::Static(4)])).unwrap();
    let seq = b.input("new", desc(vec![dynamic("seq", 4), Dim::Static(4)])).unwrap();
    let row = b.input("row", desc(vec![Dim::Static(1), Dim::Static(4)])).unwrap();
    let one = b.concat(&[past, row], 0, OpOptions::default()).unwrap();
    assert_eq!(b.desc(one).unwrap().shape[0], dynamic("past+1", 16));
    let both = b.concat(&[seq, past, row], 0, OpOptions::default()).unwrap();
    assert_eq!(b.desc(both).unwrap().shape[0], dynamic("past+seq+1", 20));
    // Other axes must agree exactly.
    let wide = b.input("wide", desc(vec![dynamic("past", 15), Dim::Static(5)])).unwrap();
    assert_eq!(b.concat(&[past, wide], 1, OpOptions::default()).map(|_| ()), Ok(()));
    assert_eq!(b.concat(&[past, wide], 0, OpOptions::default()).unwrap_err().kind, ErrorKind::TypeError);
    let g = b.build(&[("one", one), ("both", both)]).unwrap();
    let mut dims = DimBindings::default();
    dims.bind("past", g.input_desc("past").unwrap(), &[9, 4]).unwrap();
    dims.bind("new", g.input_desc("new").unwrap(), &[2, 4]).unwrap();
    assert_eq!(dims.shape(g.output_desc("both").unwrap()).unwrap(), [12, 4]);
    let resolved = g.resolved(&dims);
    assert_eq!(resolved.output_desc("one").unwrap(), &OperandDescriptor::new(F, &[10, 4]));
}

#[test]
fn slices_with_dynamic_sizes() {
    let mut b = GraphBuilder::new();
    let cache = b.input("cache", OperandDescriptor::new(F, &[16, 4])).unwrap();
    let total = dynamic("total", 16);
    let err = |b: &mut GraphBuilder, starts: Vec<u32>, sizes: Vec<Dim>, strides: Option<Vec<u32>>| {
        b.slice_dims(cache, starts, sizes, SliceOptions { strides, ..Default::default() }).unwrap_err().kind
    };
    assert_eq!(err(&mut b, vec![0, 0], vec![total.clone(), 4.into()], None), ErrorKind::TypeError, "no input declares it");
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![total.clone()])).unwrap();
    let view = b.slice_dims(cache, vec![0, 0], vec![total.clone(), 4.into()], SliceOptions::default()).unwrap();
    assert_eq!(b.desc(view).unwrap().shape, [total.clone(), Dim::Static(4)]);
    assert_eq!(err(&mut b, vec![1, 0], vec![total.clone(), 4.into()], None), ErrorKind::TypeError, "1 + 16 rows > 16");
    assert_eq!(err(&mut b, vec![0, 0], vec![dynamic("total", 8), 4.into()], None), ErrorKind::TypeError, "another bound");
    assert_eq!(
        err(&mut b, vec![0, 0], vec![total.clone(), 4.into()], Some(vec![2, 1])),
        ErrorKind::NotSupportedError,
        "a stride over a dynamic size"
    );
    // Slicing a dynamic axis by its own dimension keeps it.
    let m2 = b.slice_dims(mask, vec![0], vec![total.clone()], SliceOptions::default()).unwrap();
    assert_eq!(b.desc(m2).unwrap().shape, [total]);
    // The mask's data is never read, but its tensor gives `total`: build keeps the input.
    let g = b.build(&[("view", view)]).unwrap();
    assert!(g.input_desc("mask").is_some(), "the input giving 'total' is kept");
}

#[test]
fn in_place_pairs() {
    let mut b = GraphBuilder::new();
    let idx = OperandDescriptor::new(DataType::Int32, &[1, 1]);
    let k = b.input("k", OperandDescriptor::new(F, &[8, 2])).unwrap();
    let v = b.input("v", OperandDescriptor::new(F, &[8, 2])).unwrap();
    let w = b.input("w", OperandDescriptor::new(F, &[8, 2])).unwrap();
    let at = b.input("at", idx).unwrap();
    let row = b.input("row", OperandDescriptor::new(F, &[1, 2])).unwrap();
    let k2 = b.scatter_nd(k, at, row, OpOptions::default()).unwrap();
    let v2 = b.scatter_nd(v, at, row, OpOptions::default()).unwrap();
    let v_read = b.relu(v, OpOptions::default()).unwrap();
    let w2 = b.scatter_nd(w, at, row, OpOptions::default()).unwrap();
    let g = b.build(&[("k2", k2), ("v2", v2), ("v_read", v_read), ("w2", w2), ("w2_again", w2)]).unwrap();
    let pairs: Vec<(&str, &str)> =
        g.in_place_pairs().into_iter().map(|(i, o)| (g.inputs[i].0.as_str(), g.outputs[o].0.as_str())).collect();
    // v is read by relu too; w2 is named by two outputs.
    assert_eq!(pairs, [("k", "k2")]);
}
