//! Validation of gru, gruCell, lstm and lstmCell.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::{
    GruCellOptions, GruOptions, LstmCellOptions, LstmOptions, RecurrentActivation, RecurrentDirection,
};
use webnn_core::{DataType, Dim, ErrorKind, GraphBuilder, Operand};

const F32: DataType = DataType::Float32;
const F16: DataType = DataType::Float16;

/// gru operands for steps 2, batch 3, inputSize 4, hiddenSize 5 and `nd` directions.
fn gru_operands(b: &mut GraphBuilder, dt: DataType, nd: u32) -> (Operand, Operand, Operand) {
    (input(b, dt, &[2, 3, 4]), input(b, dt, &[nd, 15, 4]), input(b, dt, &[nd, 15, 5]))
}

#[test]
fn gru_shapes() {
    let mut b = GraphBuilder::new();
    let (x, w, r) = gru_operands(&mut b, F32, 1);
    let outs = b.gru(x, w, r, 2, 5, labelled!(GruOptions)).unwrap();
    assert_eq!(outs.len(), 1);
    assert_eq!(shape_of(&b, outs[0]), vec![1, 3, 5]);

    let (x, w, r) = gru_operands(&mut b, F16, 2);
    let opts = labelled!(GruOptions {
        bias: Some(input(&mut b, F16, &[2, 15])),
        recurrent_bias: Some(input(&mut b, F16, &[2, 15])),
        initial_hidden_state: Some(input(&mut b, F16, &[2, 3, 5])),
        return_sequence: true,
        direction: RecurrentDirection::Both,
        activations: Some(vec![RecurrentActivation::Sigmoid, RecurrentActivation::Relu]),
    });
    let outs = b.gru(x, w, r, 2, 5, opts).unwrap();
    assert_eq!(shape_of(&b, outs[0]), vec![2, 3, 5]);
    assert_eq!(shape_of(&b, outs[1]), vec![2, 2, 3, 5]);
    assert_eq!(desc(&b, outs[1]).data_type, F16);
}

#[test]
fn gru_errors() {
    let mut b = GraphBuilder::new();
    let (x, w, r) = gru_operands(&mut b, F32, 1);
    // steps 0, steps not input.shape[0], hiddenSize 0 or overflowing 3 * / 6 * hiddenSize.
    type_error(b.gru(x, w, r, 0, 5, labelled!(GruOptions)));
    type_error(b.gru(x, w, r, 3, 5, labelled!(GruOptions)));
    type_error(b.gru(x, w, r, 2, 0, labelled!(GruOptions)));
    type_error(b.gru(x, w, r, 2, u32::MAX, labelled!(GruOptions)));
    // Integer inputs; weight of another float type; wrong ranks and shapes.
    let (xi, wi, ri) = gru_operands(&mut b, DataType::Uint32, 1);
    type_error(b.gru(xi, wi, ri, 2, 5, labelled!(GruOptions)));
    let w16 = input(&mut b, F16, &[1, 15, 4]);
    type_error(b.gru(x, w16, r, 2, 5, labelled!(GruOptions)));
    let x2 = input(&mut b, F32, &[2, 3]);
    type_error(b.gru(x2, w, r, 2, 5, labelled!(GruOptions)));
    let w20 = input(&mut b, F32, &[1, 20, 4]);
    type_error(b.gru(x, w20, r, 2, 5, labelled!(GruOptions)));
    let r_bad = input(&mut b, F32, &[1, 15, 4]);
    type_error(b.gru(x, w, r_bad, 2, 5, labelled!(GruOptions)));
    // numDirections 2 needs weights of 2 directions.
    type_error(b.gru(x, w, r, 2, 5, labelled!(GruOptions { direction: RecurrentDirection::Both })));
    let three = vec![RecurrentActivation::Sigmoid, RecurrentActivation::Tanh, RecurrentActivation::Relu];
    type_error(b.gru(x, w, r, 2, 5, labelled!(GruOptions { activations: Some(three) })));
    for shape in [&[1u32][..], &[1, 5], &[2, 15]] {
        let bias = input(&mut b, F32, shape);
        type_error(b.gru(x, w, r, 2, 5, labelled!(GruOptions { bias: Some(bias) })));
        type_error(b.gru(x, w, r, 2, 5, labelled!(GruOptions { recurrent_bias: Some(bias) })));
    }
    let bias16 = input(&mut b, F16, &[1, 15]);
    type_error(b.gru(x, w, r, 2, 5, labelled!(GruOptions { bias: Some(bias16) })));
    for (dt, shape) in [(F32, &[1u32, 3][..]), (F32, &[1, 3, 15]), (DataType::Uint64, &[1, 3, 5])] {
        let h0 = input(&mut b, dt, shape);
        type_error(b.gru(x, w, r, 2, 5, labelled!(GruOptions { initial_hidden_state: Some(h0) })));
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
    let opts = labelled!(GruCellOptions { bias: Some(bias), recurrent_bias: Some(bias) });
    let y = b.gru_cell(x, w, r, h, 5, opts).unwrap();
    assert_eq!(shape_of(&b, y), vec![3, 5]);

    type_error(b.gru_cell(x, w, r, h, 0, labelled!(GruCellOptions)));
    type_error(b.gru_cell(x, w, r, h, u32::MAX, labelled!(GruCellOptions)));
    let xi = input(&mut b, DataType::Uint32, &[3, 4]);
    type_error(b.gru_cell(xi, w, r, h, 5, labelled!(GruCellOptions)));
    let x_bad = input(&mut b, F32, &[4, 4]);
    type_error(b.gru_cell(x_bad, w, r, h, 5, labelled!(GruCellOptions)));
    let w_int = input(&mut b, DataType::Int8, &[15, 4]);
    type_error(b.gru_cell(x, w_int, r, h, 5, labelled!(GruCellOptions)));
    let w1 = input(&mut b, F32, &[15]);
    type_error(b.gru_cell(x, w1, r, h, 5, labelled!(GruCellOptions)));
    type_error(b.gru_cell(x, w, w1, h, 5, labelled!(GruCellOptions)));
    let r_bad = input(&mut b, F32, &[20, 4]);
    type_error(b.gru_cell(x, w, r_bad, h, 5, labelled!(GruCellOptions)));
    let h_bad = input(&mut b, F32, &[3, 15]);
    type_error(b.gru_cell(x, w, r, h_bad, 5, labelled!(GruCellOptions)));
    let one = vec![RecurrentActivation::Sigmoid];
    type_error(b.gru_cell(x, w, r, h, 5, labelled!(GruCellOptions { activations: Some(one) })));
    for (dt, shape) in [(DataType::Uint8, &[15u32][..]), (F32, &[3, 15]), (F32, &[10]), (F16, &[15])] {
        let bad = input(&mut b, dt, shape);
        type_error(b.gru_cell(x, w, r, h, 5, labelled!(GruCellOptions { bias: Some(bad) })));
        type_error(b.gru_cell(x, w, r, h, 5, labelled!(GruCellOptions { recurrent_bias: Some(bad) })));
    }
}

#[test]
fn lstm_shapes() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F16, &[10, 5, 3]);
    let w = input(&mut b, F16, &[1, 32, 3]);
    let r = input(&mut b, F16, &[1, 32, 8]);
    let outs = b.lstm(x, w, r, 10, 8, labelled!(LstmOptions)).unwrap();
    assert_eq!(outs.len(), 2);
    assert_eq!(shape_of(&b, outs[0]), vec![1, 5, 8]);
    assert_eq!(shape_of(&b, outs[1]), vec![1, 5, 8]);

    let x = input(&mut b, F32, &[10, 5, 3]);
    let w = input(&mut b, F32, &[2, 32, 3]);
    let r = input(&mut b, F32, &[2, 32, 8]);
    let opts = labelled!(LstmOptions {
        bias: Some(input(&mut b, F32, &[2, 32])),
        recurrent_bias: Some(input(&mut b, F32, &[2, 32])),
        peephole_weight: Some(input(&mut b, F32, &[2, 24])),
        initial_hidden_state: Some(input(&mut b, F32, &[2, 5, 8])),
        initial_cell_state: Some(input(&mut b, F32, &[2, 5, 8])),
        return_sequence: true,
        direction: RecurrentDirection::Both,
    });
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
    type_error(b.lstm(x, w, r, 0, 8, labelled!(LstmOptions)));
    type_error(b.lstm(x, w, r, 9, 8, labelled!(LstmOptions)));
    type_error(b.lstm(x, w, r, 10, 0, labelled!(LstmOptions)));
    type_error(b.lstm(x, w, r, 10, u32::MAX, labelled!(LstmOptions)));
    let w_bad = input(&mut b, F32, &[1, 32, 1000]);
    type_error(b.lstm(x, w_bad, r, 10, 8, labelled!(LstmOptions)));
    let r2 = input(&mut b, F32, &[1, 32]);
    type_error(b.lstm(x, w, r2, 10, 8, labelled!(LstmOptions)));
    let two = vec![RecurrentActivation::Sigmoid, RecurrentActivation::Tanh];
    type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { activations: Some(two) })));
    for shape in [&[1u32][..], &[1, 1000]] {
        let bad = input(&mut b, F32, shape);
        type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { bias: Some(bad) })));
        type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { recurrent_bias: Some(bad) })));
        type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { peephole_weight: Some(bad) })));
    }
    // peepholeWeight is [numDirections, 3 * hiddenSize], not 4 *.
    let p32 = input(&mut b, F32, &[1, 32]);
    type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { peephole_weight: Some(p32) })));
    let p16 = input(&mut b, F16, &[1, 24]);
    type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { peephole_weight: Some(p16) })));
    for (dt, shape) in [(DataType::Uint64, &[1u32, 5, 8][..]), (F32, &[1, 5, 1000]), (F32, &[2, 5, 8])] {
        let s = input(&mut b, dt, shape);
        type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { initial_hidden_state: Some(s) })));
        type_error(b.lstm(x, w, r, 10, 8, labelled!(LstmOptions { initial_cell_state: Some(s) })));
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
    let opts = labelled!(LstmCellOptions {
        bias: Some(input(&mut b, F32, &[20])),
        recurrent_bias: Some(input(&mut b, F32, &[20])),
        peephole_weight: Some(input(&mut b, F32, &[15])),
    });
    let outs = b.lstm_cell(x, w, r, h, c, 5, opts).unwrap();
    assert_eq!(outs.len(), 2);
    assert_eq!(shape_of(&b, outs[0]), vec![3, 5]);
    assert_eq!(shape_of(&b, outs[1]), vec![3, 5]);

    type_error(b.lstm_cell(x, w, r, h, c, 0, labelled!(LstmCellOptions)));
    type_error(b.lstm_cell(x, w, r, h, c, u32::MAX, labelled!(LstmCellOptions)));
    let xi = input(&mut b, DataType::Uint32, &[3, 4]);
    type_error(b.lstm_cell(xi, w, r, h, c, 5, labelled!(LstmCellOptions)));
    let x_bad = input(&mut b, F32, &[3, 1000]);
    type_error(b.lstm_cell(x_bad, w, r, h, c, 5, labelled!(LstmCellOptions)));
    let w16 = input(&mut b, F16, &[20, 4]);
    type_error(b.lstm_cell(x, w16, r, h, c, 5, labelled!(LstmCellOptions)));
    let w3 = input(&mut b, F32, &[20, 4, 1]);
    type_error(b.lstm_cell(x, w3, r, h, c, 5, labelled!(LstmCellOptions)));
    let w_bad = input(&mut b, F32, &[1000, 4]);
    type_error(b.lstm_cell(x, w_bad, r, h, c, 5, labelled!(LstmCellOptions)));
    type_error(b.lstm_cell(x, w, w_bad, h, c, 5, labelled!(LstmCellOptions)));
    let s_bad = input(&mut b, F32, &[3, 1000]);
    type_error(b.lstm_cell(x, w, r, s_bad, c, 5, labelled!(LstmCellOptions)));
    type_error(b.lstm_cell(x, w, r, h, s_bad, 5, labelled!(LstmCellOptions)));
    let s_int = input(&mut b, DataType::Int64, &[3, 5]);
    type_error(b.lstm_cell(x, w, r, s_int, c, 5, labelled!(LstmCellOptions)));
    type_error(b.lstm_cell(x, w, r, h, s_int, 5, labelled!(LstmCellOptions)));
    let four = vec![RecurrentActivation::Sigmoid; 4];
    type_error(b.lstm_cell(x, w, r, h, c, 5, labelled!(LstmCellOptions { activations: Some(four) })));
    for (dt, shape) in [(DataType::Int8, &[20u32][..]), (F32, &[20, 1000]), (F32, &[1000]), (F16, &[20])] {
        let bad = input(&mut b, dt, shape);
        type_error(b.lstm_cell(x, w, r, h, c, 5, labelled!(LstmCellOptions { bias: Some(bad) })));
        type_error(b.lstm_cell(x, w, r, h, c, 5, labelled!(LstmCellOptions { recurrent_bias: Some(bad) })));
    }
    for (dt, shape) in [(F16, &[15u32][..]), (F32, &[]), (F32, &[1000]), (F32, &[20])] {
        let bad = input(&mut b, dt, shape);
        type_error(b.lstm_cell(x, w, r, h, c, 5, labelled!(LstmCellOptions { peephole_weight: Some(bad) })));
    }
}

#[test]
fn dynamic_batch_passes_through_and_dynamic_steps_is_not_supported() {
    let mut b = GraphBuilder::new();
    let batch = dyn_dim("batch", 4);
    let x = input_dims(&mut b, F32, vec![Dim::Static(2), batch.clone(), Dim::Static(4)]);
    let w = input(&mut b, F32, &[1, 15, 4]);
    let r = input(&mut b, F32, &[1, 15, 5]);
    let outs = b.gru(x, w, r, 2, 5, labelled!(GruOptions { return_sequence: true })).unwrap();
    assert_eq!(desc(&b, outs[1]).shape, vec![Dim::Static(2), Dim::Static(1), batch, Dim::Static(5)]);

    let xs = input_dims(&mut b, F32, vec![dyn_dim("steps", 2), Dim::Static(3), Dim::Static(4)]);
    error_of(b.gru(xs, w, r, 2, 5, labelled!(GruOptions)), ErrorKind::NotSupportedError);
}
