//! Validation of gru, gruCell, lstm and lstmCell.

use webnn_core::ops::{
    GruCellOptions, GruOptions, LstmCellOptions, LstmOptions, RecurrentActivation, RecurrentDirection,
};
use webnn_core::{DataType, Dim, Error, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result};

const LABEL: &str = "mylabel";
const F32: DataType = DataType::Float32;
const F16: DataType = DataType::Float16;

fn input(b: &mut GraphBuilder, dt: DataType, shape: &[u32]) -> Operand {
    let name = format!("in{}", b.graph().operands.len());
    b.input(&name, OperandDescriptor::new(dt, shape)).unwrap()
}

fn type_error<T: std::fmt::Debug>(r: Result<T>) {
    let err: Error = r.unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError, "{err}");
    assert!(err.to_string().contains("[mylabel]"), "{err}");
}

fn shape_of(b: &GraphBuilder, o: Operand) -> Vec<u32> {
    b.desc(o).unwrap().static_shape().unwrap()
}

fn gru_opts() -> GruOptions {
    GruOptions { label: LABEL.into(), ..Default::default() }
}

fn gru_cell_opts() -> GruCellOptions {
    GruCellOptions { label: LABEL.into(), ..Default::default() }
}

fn lstm_opts() -> LstmOptions {
    LstmOptions { label: LABEL.into(), ..Default::default() }
}

fn lstm_cell_opts() -> LstmCellOptions {
    LstmCellOptions { label: LABEL.into(), ..Default::default() }
}

/// gru operands for steps 2, batch 3, inputSize 4, hiddenSize 5 and `nd` directions.
fn gru_operands(b: &mut GraphBuilder, dt: DataType, nd: u32) -> (Operand, Operand, Operand) {
    (input(b, dt, &[2, 3, 4]), input(b, dt, &[nd, 15, 4]), input(b, dt, &[nd, 15, 5]))
}

#[test]
fn gru_shapes() {
    let mut b = GraphBuilder::new();
    let (x, w, r) = gru_operands(&mut b, F32, 1);
    let outs = b.gru(x, w, r, 2, 5, gru_opts()).unwrap();
    assert_eq!(outs.len(), 1);
    assert_eq!(shape_of(&b, outs[0]), vec![1, 3, 5]);

    let (x, w, r) = gru_operands(&mut b, F16, 2);
    let opts = GruOptions {
        bias: Some(input(&mut b, F16, &[2, 15])),
        recurrent_bias: Some(input(&mut b, F16, &[2, 15])),
        initial_hidden_state: Some(input(&mut b, F16, &[2, 3, 5])),
        return_sequence: true,
        direction: RecurrentDirection::Both,
        activations: Some(vec![RecurrentActivation::Sigmoid, RecurrentActivation::Relu]),
        ..gru_opts()
    };
    let outs = b.gru(x, w, r, 2, 5, opts).unwrap();
    assert_eq!(shape_of(&b, outs[0]), vec![2, 3, 5]);
    assert_eq!(shape_of(&b, outs[1]), vec![2, 2, 3, 5]);
    assert_eq!(b.desc(outs[1]).unwrap().data_type, F16);
}

#[test]
fn gru_errors() {
    let mut b = GraphBuilder::new();
    let (x, w, r) = gru_operands(&mut b, F32, 1);
    // steps 0, steps not input.shape[0], hiddenSize 0 or overflowing 3 * / 6 * hiddenSize.
    type_error(b.gru(x, w, r, 0, 5, gru_opts()));
    type_error(b.gru(x, w, r, 3, 5, gru_opts()));
    type_error(b.gru(x, w, r, 2, 0, gru_opts()));
    type_error(b.gru(x, w, r, 2, u32::MAX, gru_opts()));
    // Integer inputs; weight of another float type; wrong ranks and shapes.
    let (xi, wi, ri) = gru_operands(&mut b, DataType::Uint32, 1);
    type_error(b.gru(xi, wi, ri, 2, 5, gru_opts()));
    let w16 = input(&mut b, F16, &[1, 15, 4]);
    type_error(b.gru(x, w16, r, 2, 5, gru_opts()));
    let x2 = input(&mut b, F32, &[2, 3]);
    type_error(b.gru(x2, w, r, 2, 5, gru_opts()));
    let w20 = input(&mut b, F32, &[1, 20, 4]);
    type_error(b.gru(x, w20, r, 2, 5, gru_opts()));
    let r_bad = input(&mut b, F32, &[1, 15, 4]);
    type_error(b.gru(x, w, r_bad, 2, 5, gru_opts()));
    // numDirections 2 needs weights of 2 directions.
    type_error(b.gru(x, w, r, 2, 5, GruOptions { direction: RecurrentDirection::Both, ..gru_opts() }));
    let three = vec![RecurrentActivation::Sigmoid, RecurrentActivation::Tanh, RecurrentActivation::Relu];
    type_error(b.gru(x, w, r, 2, 5, GruOptions { activations: Some(three), ..gru_opts() }));
    for shape in [&[1u32][..], &[1, 5], &[2, 15]] {
        let bias = input(&mut b, F32, shape);
        type_error(b.gru(x, w, r, 2, 5, GruOptions { bias: Some(bias), ..gru_opts() }));
        type_error(b.gru(x, w, r, 2, 5, GruOptions { recurrent_bias: Some(bias), ..gru_opts() }));
    }
    let bias16 = input(&mut b, F16, &[1, 15]);
    type_error(b.gru(x, w, r, 2, 5, GruOptions { bias: Some(bias16), ..gru_opts() }));
    for (dt, shape) in [(F32, &[1u32, 3][..]), (F32, &[1, 3, 15]), (DataType::Uint64, &[1, 3, 5])] {
        let h0 = input(&mut b, dt, shape);
        type_error(b.gru(x, w, r, 2, 5, GruOptions { initial_hidden_state: Some(h0), ..gru_opts() }));
    }
}

#[test]
fn gru_cell_shapes_and_errors() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[3, 4]);
    let w = input(&mut b, F32, &[15, 4]);
    let r = input(&mut b, F32, &[15, 5]);
    let h = input(&mut b, F32, &[3, 5]);
    let bias = input(&mut b, F32, &[15]);
    let opts = GruCellOptions { bias: Some(bias), recurrent_bias: Some(bias), ..gru_cell_opts() };
    let y = b.gru_cell(x, w, r, h, 5, opts).unwrap();
    assert_eq!(shape_of(&b, y), vec![3, 5]);

    type_error(b.gru_cell(x, w, r, h, 0, gru_cell_opts()));
    type_error(b.gru_cell(x, w, r, h, u32::MAX, gru_cell_opts()));
    let xi = input(&mut b, DataType::Uint32, &[3, 4]);
    type_error(b.gru_cell(xi, w, r, h, 5, gru_cell_opts()));
    let x_bad = input(&mut b, F32, &[4, 4]);
    type_error(b.gru_cell(x_bad, w, r, h, 5, gru_cell_opts()));
    let w_int = input(&mut b, DataType::Int8, &[15, 4]);
    type_error(b.gru_cell(x, w_int, r, h, 5, gru_cell_opts()));
    let w1 = input(&mut b, F32, &[15]);
    type_error(b.gru_cell(x, w1, r, h, 5, gru_cell_opts()));
    type_error(b.gru_cell(x, w, w1, h, 5, gru_cell_opts()));
    let r_bad = input(&mut b, F32, &[20, 4]);
    type_error(b.gru_cell(x, w, r_bad, h, 5, gru_cell_opts()));
    let h_bad = input(&mut b, F32, &[3, 15]);
    type_error(b.gru_cell(x, w, r, h_bad, 5, gru_cell_opts()));
    let one = vec![RecurrentActivation::Sigmoid];
    type_error(b.gru_cell(x, w, r, h, 5, GruCellOptions { activations: Some(one), ..gru_cell_opts() }));
    for (dt, shape) in [(DataType::Uint8, &[15u32][..]), (F32, &[3, 15]), (F32, &[10]), (F16, &[15])] {
        let bad = input(&mut b, dt, shape);
        type_error(b.gru_cell(x, w, r, h, 5, GruCellOptions { bias: Some(bad), ..gru_cell_opts() }));
        type_error(b.gru_cell(x, w, r, h, 5, GruCellOptions { recurrent_bias: Some(bad), ..gru_cell_opts() }));
    }
}

#[test]
fn lstm_shapes() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F16, &[10, 5, 3]);
    let w = input(&mut b, F16, &[1, 32, 3]);
    let r = input(&mut b, F16, &[1, 32, 8]);
    let outs = b.lstm(x, w, r, 10, 8, lstm_opts()).unwrap();
    assert_eq!(outs.len(), 2);
    assert_eq!(shape_of(&b, outs[0]), vec![1, 5, 8]);
    assert_eq!(shape_of(&b, outs[1]), vec![1, 5, 8]);

    let x = input(&mut b, F32, &[10, 5, 3]);
    let w = input(&mut b, F32, &[2, 32, 3]);
    let r = input(&mut b, F32, &[2, 32, 8]);
    let opts = LstmOptions {
        bias: Some(input(&mut b, F32, &[2, 32])),
        recurrent_bias: Some(input(&mut b, F32, &[2, 32])),
        peephole_weight: Some(input(&mut b, F32, &[2, 24])),
        initial_hidden_state: Some(input(&mut b, F32, &[2, 5, 8])),
        initial_cell_state: Some(input(&mut b, F32, &[2, 5, 8])),
        return_sequence: true,
        direction: RecurrentDirection::Both,
        ..lstm_opts()
    };
    let outs = b.lstm(x, w, r, 10, 8, opts).unwrap();
    assert_eq!(outs.len(), 3);
    assert_eq!(shape_of(&b, outs[2]), vec![10, 2, 5, 8]);
}

#[test]
fn lstm_errors() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[10, 5, 3]);
    let w = input(&mut b, F32, &[1, 32, 3]);
    let r = input(&mut b, F32, &[1, 32, 8]);
    type_error(b.lstm(x, w, r, 0, 8, lstm_opts()));
    type_error(b.lstm(x, w, r, 9, 8, lstm_opts()));
    type_error(b.lstm(x, w, r, 10, 0, lstm_opts()));
    type_error(b.lstm(x, w, r, 10, u32::MAX, lstm_opts()));
    let w_bad = input(&mut b, F32, &[1, 32, 1000]);
    type_error(b.lstm(x, w_bad, r, 10, 8, lstm_opts()));
    let r2 = input(&mut b, F32, &[1, 32]);
    type_error(b.lstm(x, w, r2, 10, 8, lstm_opts()));
    let two = vec![RecurrentActivation::Sigmoid, RecurrentActivation::Tanh];
    type_error(b.lstm(x, w, r, 10, 8, LstmOptions { activations: Some(two), ..lstm_opts() }));
    for shape in [&[1u32][..], &[1, 1000]] {
        let bad = input(&mut b, F32, shape);
        type_error(b.lstm(x, w, r, 10, 8, LstmOptions { bias: Some(bad), ..lstm_opts() }));
        type_error(b.lstm(x, w, r, 10, 8, LstmOptions { recurrent_bias: Some(bad), ..lstm_opts() }));
        type_error(b.lstm(x, w, r, 10, 8, LstmOptions { peephole_weight: Some(bad), ..lstm_opts() }));
    }
    // peepholeWeight is [numDirections, 3 * hiddenSize], not 4 *.
    let p32 = input(&mut b, F32, &[1, 32]);
    type_error(b.lstm(x, w, r, 10, 8, LstmOptions { peephole_weight: Some(p32), ..lstm_opts() }));
    let p16 = input(&mut b, F16, &[1, 24]);
    type_error(b.lstm(x, w, r, 10, 8, LstmOptions { peephole_weight: Some(p16), ..lstm_opts() }));
    for (dt, shape) in [(DataType::Uint64, &[1u32, 5, 8][..]), (F32, &[1, 5, 1000]), (F32, &[2, 5, 8])] {
        let s = input(&mut b, dt, shape);
        type_error(b.lstm(x, w, r, 10, 8, LstmOptions { initial_hidden_state: Some(s), ..lstm_opts() }));
        type_error(b.lstm(x, w, r, 10, 8, LstmOptions { initial_cell_state: Some(s), ..lstm_opts() }));
    }
}

#[test]
fn lstm_cell_shapes_and_errors() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[3, 4]);
    let w = input(&mut b, F32, &[20, 4]);
    let r = input(&mut b, F32, &[20, 5]);
    let h = input(&mut b, F32, &[3, 5]);
    let c = input(&mut b, F32, &[3, 5]);
    let opts = LstmCellOptions {
        bias: Some(input(&mut b, F32, &[20])),
        recurrent_bias: Some(input(&mut b, F32, &[20])),
        peephole_weight: Some(input(&mut b, F32, &[15])),
        ..lstm_cell_opts()
    };
    let outs = b.lstm_cell(x, w, r, h, c, 5, opts).unwrap();
    assert_eq!(outs.len(), 2);
    assert_eq!(shape_of(&b, outs[0]), vec![3, 5]);
    assert_eq!(shape_of(&b, outs[1]), vec![3, 5]);

    type_error(b.lstm_cell(x, w, r, h, c, 0, lstm_cell_opts()));
    type_error(b.lstm_cell(x, w, r, h, c, u32::MAX, lstm_cell_opts()));
    let xi = input(&mut b, DataType::Uint32, &[3, 4]);
    type_error(b.lstm_cell(xi, w, r, h, c, 5, lstm_cell_opts()));
    let x_bad = input(&mut b, F32, &[3, 1000]);
    type_error(b.lstm_cell(x_bad, w, r, h, c, 5, lstm_cell_opts()));
    let w16 = input(&mut b, F16, &[20, 4]);
    type_error(b.lstm_cell(x, w16, r, h, c, 5, lstm_cell_opts()));
    let w3 = input(&mut b, F32, &[20, 4, 1]);
    type_error(b.lstm_cell(x, w3, r, h, c, 5, lstm_cell_opts()));
    let w_bad = input(&mut b, F32, &[1000, 4]);
    type_error(b.lstm_cell(x, w_bad, r, h, c, 5, lstm_cell_opts()));
    type_error(b.lstm_cell(x, w, w_bad, h, c, 5, lstm_cell_opts()));
    let s_bad = input(&mut b, F32, &[3, 1000]);
    type_error(b.lstm_cell(x, w, r, s_bad, c, 5, lstm_cell_opts()));
    type_error(b.lstm_cell(x, w, r, h, s_bad, 5, lstm_cell_opts()));
    let s_int = input(&mut b, DataType::Int64, &[3, 5]);
    type_error(b.lstm_cell(x, w, r, s_int, c, 5, lstm_cell_opts()));
    type_error(b.lstm_cell(x, w, r, h, s_int, 5, lstm_cell_opts()));
    let four = vec![RecurrentActivation::Sigmoid; 4];
    type_error(b.lstm_cell(x, w, r, h, c, 5, LstmCellOptions { activations: Some(four), ..lstm_cell_opts() }));
    for (dt, shape) in [(DataType::Int8, &[20u32][..]), (F32, &[20, 1000]), (F32, &[1000]), (F16, &[20])] {
        let bad = input(&mut b, dt, shape);
        type_error(b.lstm_cell(x, w, r, h, c, 5, LstmCellOptions { bias: Some(bad), ..lstm_cell_opts() }));
        type_error(b.lstm_cell(x, w, r, h, c, 5, LstmCellOptions { recurrent_bias: Some(bad), ..lstm_cell_opts() }));
    }
    for (dt, shape) in [(F16, &[15u32][..]), (F32, &[]), (F32, &[1000]), (F32, &[20])] {
        let bad = input(&mut b, dt, shape);
        type_error(b.lstm_cell(x, w, r, h, c, 5, LstmCellOptions { peephole_weight: Some(bad), ..lstm_cell_opts() }));
    }
}

#[test]
fn dynamic_batch_passes_through_and_dynamic_steps_is_not_supported() {
    let mut b = GraphBuilder::new();
    let batch = Dim::Dynamic { name: "batch".into(), max_size: 4 };
    let x =
        b.input("x", OperandDescriptor::with_dims(F32, vec![Dim::Static(2), batch.clone(), Dim::Static(4)])).unwrap();
    let w = input(&mut b, F32, &[1, 15, 4]);
    let r = input(&mut b, F32, &[1, 15, 5]);
    let outs = b.gru(x, w, r, 2, 5, GruOptions { return_sequence: true, ..gru_opts() }).unwrap();
    let d = b.desc(outs[1]).unwrap();
    assert_eq!(d.shape, vec![Dim::Static(2), Dim::Static(1), batch, Dim::Static(5)]);

    let steps = Dim::Dynamic { name: "steps".into(), max_size: 2 };
    let xs = b.input("xs", OperandDescriptor::with_dims(F32, vec![steps, Dim::Static(3), Dim::Static(4)])).unwrap();
    let err = b.gru(xs, w, r, 2, 5, gru_opts()).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotSupportedError, "{err}");
}
