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

/// Each present operand of `operands` must have the input's data type and shape `shape`.
fn check_optional(
    cx: &Ctx,
    input: &OperandDescriptor,
    operands: &[(&str, Option<Operand>)],
    shape: &[Dim],
) -> Result<()> {
    for &(slot, operand) in operands {
        if let Some(d) = check_opt(cx, slot, operand, input)? {
            expect_shape(slot, d, shape)?;
        }
    }
    Ok(())
}

/// What gru and lstm share: the input's sizes and the numbers derived from the options.
struct Sequence<'a> {
    input: &'a OperandDescriptor,
    batch: Dim,
    num_directions: Dim,
    hidden: Dim,
}

impl Sequence<'_> {
    /// « numDirections, batchSize, hiddenSize »: every state's shape.
    fn state_shape(&self) -> [Dim; 3] {
        [self.num_directions.clone(), self.batch.clone(), self.hidden.clone()]
    }

    /// `states` outputs of the state shape, then the output sequence « steps, numDirections,
    /// batchSize, hiddenSize » if `return_sequence`.
    fn outputs(&self, cx: &Ctx, states: usize, steps: u32, return_sequence: bool) -> Result<Vec<OperandDescriptor>> {
        let mut outs = vec![desc(self.input.data_type, self.state_shape().to_vec()); states];
        if return_sequence {
            let mut seq = vec![Dim::Static(steps)];
            seq.extend(self.state_shape());
            outs.push(desc(self.input.data_type, seq));
        }
        for (i, d) in outs.iter().enumerate() {
            cx.check_desc(&format!("output{i}"), d)?;
        }
        Ok(outs)
    }
}

/// The common steps of gru and lstm up to the weights' shapes: data types and ranks of input,
/// weight and recurrentWeight, `steps` against input.shape[0], and the weight shapes
/// « numDirections, gates * hiddenSize, inputSize | hiddenSize ».
fn check_sequence<'a>(
    cx: &Ctx<'a>,
    [input, weight, recurrent_weight]: [Operand; 3],
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

/// The common steps of gruCell and lstmCell: data types of input, weight, recurrentWeight and
/// the `states`; the shapes « gates * hiddenSize, inputSize | hiddenSize » of the weights and
/// « batchSize, hiddenSize » of the states; hiddenSize; then bias and recurrentBias
/// « gates * hiddenSize ». Gives the input and the state shape.
fn check_cell<'a>(
    cx: &Ctx<'a>,
    [input, weight, recurrent_weight]: [Operand; 3],
    states: &[(&str, Operand)],
    [bias, recurrent_bias]: [Option<Operand>; 2],
    hidden_size: u32,
    gates: u32,
) -> Result<(&'a OperandDescriptor, [Dim; 2])> {
    let input = cx.check("input", input)?;
    let weight = check_like(cx, "weight", weight, input)?;
    let recurrent_weight = check_like(cx, "recurrentWeight", recurrent_weight, input)?;
    let state_descs =
        states.iter().map(|&(slot, o)| Ok((slot, check_like(cx, slot, o, input)?))).collect::<Result<Vec<_>>>()?;
    let batch = input.shape[0].clone();
    let input_size = input.shape[1].clone();
    let gate = gate_dim(gates, hidden_size)?;
    let hidden = Dim::Static(hidden_size);
    expect_shape("weight", weight, &[gate.clone(), input_size])?;
    expect_shape("recurrentWeight", recurrent_weight, &[gate.clone(), hidden.clone()])?;
    let state_shape = [batch, hidden];
    for (slot, d) in state_descs {
        expect_shape(slot, d, &state_shape)?;
    }
    check_hidden_size(2 * gates as u64, hidden_size)?;
    check_optional(cx, input, &[("bias", bias), ("recurrentBias", recurrent_bias)], &[gate])?;
    Ok((input, state_shape))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru>
pub(super) fn gru(cx: &Ctx, op: &Gru) -> Result<Vec<OperandDescriptor>> {
    let o = &op.options;
    let h = op.hidden_size;
    let s = check_sequence(cx, [op.input, op.weight, op.recurrent_weight], op.steps, h, 3, o.direction)?;
    check_hidden_size(6, h)?;
    let biases = [("bias", o.bias), ("recurrentBias", o.recurrent_bias)];
    check_optional(cx, s.input, &biases, &[s.num_directions.clone(), gate_dim(3, h)?])?;
    check_optional(cx, s.input, &[("initialHiddenState", o.initial_hidden_state)], &s.state_shape())?;
    check_activations(o.activations.as_deref(), 2)?;
    s.outputs(cx, 1, op.steps, o.return_sequence)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell>
pub(super) fn gru_cell(cx: &Ctx, op: &GruCell) -> Result<OperandDescriptor> {
    let o = &op.options;
    let weights = [op.input, op.weight, op.recurrent_weight];
    let states = [("hiddenState", op.hidden_state)];
    let (input, state_shape) = check_cell(cx, weights, &states, [o.bias, o.recurrent_bias], op.hidden_size, 3)?;
    check_activations(o.activations.as_deref(), 2)?;
    let out = desc(input.data_type, state_shape.to_vec());
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm>
pub(super) fn lstm(cx: &Ctx, op: &Lstm) -> Result<Vec<OperandDescriptor>> {
    let o = &op.options;
    let h = op.hidden_size;
    let s = check_sequence(cx, [op.input, op.weight, op.recurrent_weight], op.steps, h, 4, o.direction)?;
    check_hidden_size(8, h)?;
    let biases = [("bias", o.bias), ("recurrentBias", o.recurrent_bias)];
    check_optional(cx, s.input, &biases, &[s.num_directions.clone(), gate_dim(4, h)?])?;
    let peephole = [("peepholeWeight", o.peephole_weight)];
    check_optional(cx, s.input, &peephole, &[s.num_directions.clone(), gate_dim(3, h)?])?;
    let states = [("initialHiddenState", o.initial_hidden_state), ("initialCellState", o.initial_cell_state)];
    check_optional(cx, s.input, &states, &s.state_shape())?;
    check_activations(o.activations.as_deref(), 3)?;
    s.outputs(cx, 2, op.steps, o.return_sequence)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell>
pub(super) fn lstm_cell(cx: &Ctx, op: &LstmCell) -> Result<Vec<OperandDescriptor>> {
    let o = &op.options;
    let h = op.hidden_size;
    let weights = [op.input, op.weight, op.recurrent_weight];
    let states = [("hiddenState", op.hidden_state), ("cellState", op.cell_state)];
    let (input, state_shape) = check_cell(cx, weights, &states, [o.bias, o.recurrent_bias], h, 4)?;
    check_optional(cx, input, &[("peepholeWeight", o.peephole_weight)], &[gate_dim(3, h)?])?;
    check_activations(o.activations.as_deref(), 3)?;
    let state = desc(input.data_type, state_shape.to_vec());
    cx.check_desc("output0", &state)?;
    cx.check_desc("output1", &state)?;
    Ok(vec![state.clone(), state])
}
