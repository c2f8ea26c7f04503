//! LSTM and GRU. ONNX and WebNN agree on the weight layouts (LSTM gates i, o, f, c as
//! WebNN's `iofg`; GRU z, r, h as `zrn`; peepholes i, o, f), so the weights pass through;
//! ONNX's one bias tensor holds WebNN's bias and recurrent bias side by side.

use super::node::{Args, OnnxNode};
use super::{Cx, Value};
use webnn_core::ops::*;
use webnn_core::{Error, Operand, Result};

pub(crate) fn lower(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let lstm = match n.op_type.as_str() {
        "LSTM" => true,
        "GRU" => false,
        _ => return Ok(None),
    };
    if n.i("layout", 0) != 0 {
        return Err(n.unsupported("layout 1 (batch first)"));
    }
    if n.has("clip") || n.i("input_forget", 0) != 0 {
        return Err(n.unsupported("clip and input_forget"));
    }
    if n.has("activation_alpha") || n.has("activation_beta") {
        return Err(n.unsupported("activation_alpha and activation_beta"));
    }
    if a.get(4).is_some() {
        return Err(n.unsupported("sequence_lens (every sequence runs all steps in WebNN)"));
    }
    let shape = cx.shape(a.req(0)?)?;
    if shape.len() != 3 {
        return Err(Error::type_error(format!("the input has rank {}, not 3 [steps, batch, size]", shape.len())));
    }
    let steps = shape[0];
    let hidden = n.i("hidden_size", 0);
    if hidden <= 0 {
        return Err(Error::type_error("hidden_size is required"));
    }
    let direction = match n.s("direction", "forward").as_str() {
        "forward" => RecurrentDirection::Forward,
        "reverse" => RecurrentDirection::Backward,
        "bidirectional" => RecurrentDirection::Both,
        other => return Err(n.unsupported(format!("direction '{other}'"))),
    };
    let per_direction = if lstm { 3 } else { 2 };
    let activations = match &n.strings("activations") {
            None => None,
            Some(names) => {
                let acts = names
                    .iter()
                    .map(|s| match s.as_str() {
                        "Sigmoid" => Ok(RecurrentActivation::Sigmoid),
                        "Tanh" => Ok(RecurrentActivation::Tanh),
                        "Relu" => Ok(RecurrentActivation::Relu),
                        other => Err(n.unsupported(format!("the activation '{other}'"))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                // Bidirectional models list each direction's; WebNN takes one list for both.
                if acts.len() == 2 * per_direction && acts[..per_direction] != acts[per_direction..] {
                    return Err(n.unsupported("different activations per direction"));
                }
                Some(acts[..per_direction.min(acts.len())].to_vec())
            }
    };
    if lstm {
        check_peepholes(a, hidden)?;
    }
    let x = a.op(cx, 0)?;
    let (w, r) = (a.op(cx, 1)?, a.op(cx, 2)?);
    let (bias, recurrent_bias) = match a.opt_op(cx, 3)? {
        Some(b) => {
            let halves = cx.b.split(b, Splits::Count(2), SplitOptions { label: cx.label.clone(), axis: 1 })?;
            (Some(halves[0]), Some(halves[1]))
        }
        None => (None, None),
    };
    let initial_h = a.opt_op(cx, 5)?;
    let wants = |i: usize| n.outputs.get(i).is_some_and(|o| !o.is_empty());
    let return_sequence = wants(0);
    let hidden = hidden as u32;
    let label = cx.label.clone();
    let outs: Vec<Operand> = if lstm {
        let options = LstmOptions {
            label,
            bias,
            recurrent_bias,
            peephole_weight: a.opt_op(cx, 7)?,
            initial_hidden_state: initial_h,
            initial_cell_state: a.opt_op(cx, 6)?,
            return_sequence,
            direction,
            layout: LstmWeightLayout::Iofg,
            activations,
        };
        cx.b.lstm(x, w, r, steps, hidden, options)?
    } else {
        let options = GruOptions {
            label,
            bias,
            recurrent_bias,
            initial_hidden_state: initial_h,
            reset_after: n.i("linear_before_reset", 0) != 0,
            return_sequence,
            direction,
            layout: GruWeightLayout::Zrn,
            activations,
        };
        cx.b.gru(x, w, r, steps, hidden, options)?
    };
    // WebNN gives the states first, then the sequence; ONNX names Y, Y_h (, Y_c).
    let states = if lstm { 2 } else { 1 };
    let mut result = Vec::new();
    result.push(if return_sequence { Value::Op(outs[states]) } else { Value::Op(outs[0]) });
    for s in 0..states {
        result.push(Value::Op(outs[s]));
    }
    Ok(Some(result))
}

/// ONNX's output gate looks through its peephole at the new cell state (o = f(... + Po ⊙ Ct));
/// WebNN's at the previous one (the spec's lstmCell emulation multiplies `cellState`). Only
/// peepholes whose output part is zero mean the same in both.
fn check_peepholes(a: &Args, hidden: i64) -> Result<()> {
    let Some(p) = a.get(7) else { return Ok(()) };
    let Value::Host(p) = p else {
        return Err(Error::not_supported("peepholes computed at run time (their output-gate part must be known to be zero)"));
    };
    let h = hidden as usize;
    let values = p.floats();
    let output_part_zero = values.chunks(3 * h).all(|d| d.get(h..2 * h).is_some_and(|o| o.iter().all(|&v| v == 0.0)));
    if !output_part_zero {
        return Err(Error::not_supported(
            "an output-gate peephole: ONNX applies it to the new cell state, WebNN's lstm to the previous one",
        ));
    }
    Ok(())
}
