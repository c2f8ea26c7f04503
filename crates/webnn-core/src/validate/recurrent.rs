//! gru, gruCell, lstm, lstmCell.
//!
//! Every operand of these ops must have the input's data type; the weights' gate dimension is
//! `3 * hiddenSize` (gru) or `4 * hiddenSize` (lstm), computed with checked arithmetic so that
//! a huge hiddenSize is a TypeError rather than an overflow.

use super::common::{desc, same_type, Ctx};
use crate::error::{Error, Result};
use crate::graph::Operand;
use crate::ops::*;
use crate::shape::{Dim, OperandDescriptor};

/// The largest [valid dimension](https://www.w3.org/TR/webnn/#valid-dimension): the range of
/// the IDL `long`.
const MAX_VALID_DIMENSION: u64 = i32::MAX as u64;

/// Checks `o` against its table slot and requires the data type of `input`.
fn check_like<'a>(cx: &Ctx<'a>, slot: &str, o: Operand, input: &OperandDescriptor) -> Result<&'a OperandDescriptor> {
    let d = cx.check(slot, o)?;
    same_type("input", input, slot, d)?;
    Ok(d)
}

/// As `check_like` for an optional operand.
fn check_opt<'a>(
    cx: &Ctx<'a>,
    slot: &str,
    o: Option<Operand>,
    input: &OperandDescriptor,
) -> Result<Option<&'a OperandDescriptor>> {
    o.map(|o| check_like(cx, slot, o, input)).transpose()
}

/// TypeError unless `d`'s shape is exactly `want`.
fn expect_shape(what: &str, d: &OperandDescriptor, want: &[Dim]) -> Result<()> {
    if d.shape.as_slice() != want {
        let want: Vec<String> = want.iter().map(Dim::to_string).collect();
        return Err(Error::type_error(format!("{what} shape {} is not [{}]", d.shape_string(), want.join(", "))));
    }
    Ok(())
}

/// `factor * hiddenSize` as a dimension; TypeError when it does not fit one.
fn gate_dim(factor: u32, hidden_size: u32) -> Result<Dim> {
    factor
        .checked_mul(hidden_size)
        .map(Dim::Static)
        .ok_or_else(|| Error::type_error(format!("{factor} * hiddenSize ({hidden_size}) overflows a dimension")))
}

/// TypeError unless `factor * hiddenSize` is a valid dimension (positive and within `long`):
/// some platforms concatenate bias and recurrentBias, so twice the gate dimension must fit.
fn check_hidden_size(factor: u64, hidden_size: u32) -> Result<()> {
    let n = factor * hidden_size as u64;
    if n == 0 || n > MAX_VALID_DIMENSION {
        return Err(Error::type_error(format!(
            "hiddenSize {hidden_size} * {factor} is not a valid dimension (1..={MAX_VALID_DIMENSION})"
        )));
    }
    Ok(())
}

/// TypeError unless `activations` (when given) has `n` entries.
fn check_activations(activations: Option<&[RecurrentActivation]>, n: usize) -> Result<()> {
    match activations {
        Some(a) if a.len() != n => {
            Err(Error::type_error(format!("activations must have {n} entries, got {}", a.len())))
        }
        _ => Ok(()),
    }
}

fn num_directions(direction: RecurrentDirection) -> u32 {
    match direction {
        RecurrentDirection::Both => 2,
        RecurrentDirection::Forward | RecurrentDirection::Backward => 1,
    }
}

/// What gru and lstm share: the input's sizes and the numbers derived from the options.
struct Sequence<'a> {
    input: &'a OperandDescriptor,
    batch: Dim,
    num_directions: Dim,
    hidden: Dim,
}

/// The common steps of gru and lstm up to the weights' shapes: data types and ranks of input,
/// weight and recurrentWeight, `steps` against input.shape[0], and the weight shapes
/// « numDirections, gates * hiddenSize, inputSize | hiddenSize ».
#[allow(clippy::too_many_arguments)]
fn check_sequence<'a>(
    cx: &Ctx<'a>,
    input: Operand,
    weight: Operand,
    recurrent_weight: Operand,
    steps: u32,
    hidden_size: u32,
    gates: u32,
    direction: RecurrentDirection,
) -> Result<Sequence<'a>> {
    let input = cx.check("input", input)?;
    let weight = check_like(cx, "weight", weight, input)?;
    let recurrent_weight = check_like(cx, "recurrentWeight", recurrent_weight, input)?;
    if steps == 0 {
        return Err(Error::type_error("steps must be greater than 0"));
    }
    match &input.shape[0] {
        Dim::Static(n) if *n == steps => {}
        Dim::Static(n) => {
            return Err(Error::type_error(format!("input.shape[0] ({n}) is not equal to steps ({steps})")));
        }
        // The time loop and the outputs' first dimension need the number.
        Dim::Dynamic { .. } => {
            return Err(Error::not_supported(format!(
                "input.shape[0] must be static (it is steps), got {}",
                input.shape_string()
            )));
        }
    }
    let batch = input.shape[1].clone();
    let input_size = input.shape[2].clone();
    let num_directions = Dim::Static(num_directions(direction));
    let gate = gate_dim(gates, hidden_size)?;
    let hidden = Dim::Static(hidden_size);
    expect_shape("weight", weight, &[num_directions.clone(), gate.clone(), input_size])?;
    expect_shape("recurrentWeight", recurrent_weight, &[num_directions.clone(), gate, hidden.clone()])?;
    Ok(Sequence { input, batch, num_directions, hidden })
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru>
pub(super) fn gru(cx: &Ctx, op: &Gru) -> Result<Vec<OperandDescriptor>> {
    let o = &op.options;
    let h = op.hidden_size;
    let s = check_sequence(cx, op.input, op.weight, op.recurrent_weight, op.steps, h, 3, o.direction)?;
    check_hidden_size(6, h)?;
    let bias_shape = [s.num_directions.clone(), gate_dim(3, h)?];
    for (slot, operand) in [("bias", o.bias), ("recurrentBias", o.recurrent_bias)] {
        if let Some(d) = check_opt(cx, slot, operand, s.input)? {
            expect_shape(slot, d, &bias_shape)?;
        }
    }
    let state_shape = [s.num_directions.clone(), s.batch.clone(), s.hidden.clone()];
    if let Some(d) = check_opt(cx, "initialHiddenState", o.initial_hidden_state, s.input)? {
        expect_shape("initialHiddenState", d, &state_shape)?;
    }
    check_activations(o.activations.as_deref(), 2)?;
    let mut outs = vec![desc(s.input.data_type, state_shape.to_vec())];
    cx.check_desc("output0", &outs[0])?;
    if o.return_sequence {
        let mut seq = vec![Dim::Static(op.steps)];
        seq.extend(state_shape);
        let d = desc(s.input.data_type, seq);
        cx.check_desc("output1", &d)?;
        outs.push(d);
    }
    Ok(outs)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell>
pub(super) fn gru_cell(cx: &Ctx, op: &GruCell) -> Result<OperandDescriptor> {
    let o = &op.options;
    let h = op.hidden_size;
    let input = cx.check("input", op.input)?;
    let weight = check_like(cx, "weight", op.weight, input)?;
    let recurrent_weight = check_like(cx, "recurrentWeight", op.recurrent_weight, input)?;
    let hidden_state = check_like(cx, "hiddenState", op.hidden_state, input)?;
    let batch = input.shape[0].clone();
    let input_size = input.shape[1].clone();
    let gate = gate_dim(3, h)?;
    let hidden = Dim::Static(h);
    expect_shape("weight", weight, &[gate.clone(), input_size])?;
    expect_shape("recurrentWeight", recurrent_weight, &[gate.clone(), hidden.clone()])?;
    let state_shape = [batch, hidden];
    expect_shape("hiddenState", hidden_state, &state_shape)?;
    check_hidden_size(6, h)?;
    for (slot, operand) in [("bias", o.bias), ("recurrentBias", o.recurrent_bias)] {
        if let Some(d) = check_opt(cx, slot, operand, input)? {
            expect_shape(slot, d, std::slice::from_ref(&gate))?;
        }
    }
    check_activations(o.activations.as_deref(), 2)?;
    let out = desc(input.data_type, state_shape.to_vec());
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm>
pub(super) fn lstm(cx: &Ctx, op: &Lstm) -> Result<Vec<OperandDescriptor>> {
    let o = &op.options;
    let h = op.hidden_size;
    let s = check_sequence(cx, op.input, op.weight, op.recurrent_weight, op.steps, h, 4, o.direction)?;
    check_hidden_size(8, h)?;
    let bias_shape = [s.num_directions.clone(), gate_dim(4, h)?];
    for (slot, operand) in [("bias", o.bias), ("recurrentBias", o.recurrent_bias)] {
        if let Some(d) = check_opt(cx, slot, operand, s.input)? {
            expect_shape(slot, d, &bias_shape)?;
        }
    }
    if let Some(d) = check_opt(cx, "peepholeWeight", o.peephole_weight, s.input)? {
        expect_shape("peepholeWeight", d, &[s.num_directions.clone(), gate_dim(3, h)?])?;
    }
    let state_shape = [s.num_directions.clone(), s.batch.clone(), s.hidden.clone()];
    let states = [("initialHiddenState", o.initial_hidden_state), ("initialCellState", o.initial_cell_state)];
    for (slot, operand) in states {
        if let Some(d) = check_opt(cx, slot, operand, s.input)? {
            expect_shape(slot, d, &state_shape)?;
        }
    }
    check_activations(o.activations.as_deref(), 3)?;
    let state = desc(s.input.data_type, state_shape.to_vec());
    cx.check_desc("output0", &state)?;
    cx.check_desc("output1", &state)?;
    let mut outs = vec![state.clone(), state];
    if o.return_sequence {
        let mut seq = vec![Dim::Static(op.steps)];
        seq.extend(state_shape);
        let d = desc(s.input.data_type, seq);
        cx.check_desc("output2", &d)?;
        outs.push(d);
    }
    Ok(outs)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell>
pub(super) fn lstm_cell(cx: &Ctx, op: &LstmCell) -> Result<Vec<OperandDescriptor>> {
    let o = &op.options;
    let h = op.hidden_size;
    let input = cx.check("input", op.input)?;
    let weight = check_like(cx, "weight", op.weight, input)?;
    let recurrent_weight = check_like(cx, "recurrentWeight", op.recurrent_weight, input)?;
    let hidden_state = check_like(cx, "hiddenState", op.hidden_state, input)?;
    let cell_state = check_like(cx, "cellState", op.cell_state, input)?;
    let batch = input.shape[0].clone();
    let input_size = input.shape[1].clone();
    let gate = gate_dim(4, h)?;
    let hidden = Dim::Static(h);
    expect_shape("weight", weight, &[gate.clone(), input_size])?;
    expect_shape("recurrentWeight", recurrent_weight, &[gate.clone(), hidden.clone()])?;
    let state_shape = [batch, hidden];
    expect_shape("hiddenState", hidden_state, &state_shape)?;
    expect_shape("cellState", cell_state, &state_shape)?;
    check_hidden_size(8, h)?;
    for (slot, operand) in [("bias", o.bias), ("recurrentBias", o.recurrent_bias)] {
        if let Some(d) = check_opt(cx, slot, operand, input)? {
            expect_shape(slot, d, std::slice::from_ref(&gate))?;
        }
    }
    if let Some(d) = check_opt(cx, "peepholeWeight", o.peephole_weight, input)? {
        expect_shape("peepholeWeight", d, &[gate_dim(3, h)?])?;
    }
    check_activations(o.activations.as_deref(), 3)?;
    let state = desc(input.data_type, state_shape.to_vec());
    cx.check_desc("output0", &state)?;
    cx.check_desc("output1", &state)?;
    Ok(vec![state.clone(), state])
}
