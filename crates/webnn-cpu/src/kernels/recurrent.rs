//! gru, gruCell, lstm, lstmCell: the spec's cell equations (its emulation notes), evaluated in
//! f64 with the emulation's order of additions. gru and lstm run the cell over the time steps
//! as the spec's decompositions do; hidden and cell states stay in f64 between steps and every
//! output element is rounded once to the output type.

use crate::eval::Cx;
use crate::tensor::Tensor;
use webnn_core::ops::*;
use webnn_core::{DataType, Error, Operand, Result};

fn activate(a: RecurrentActivation, x: f64) -> f64 {
    match a {
        // NaN stays NaN.
        RecurrentActivation::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        RecurrentActivation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        RecurrentActivation::Tanh => x.tanh(),
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// OperationError unless `t` holds `len` elements (validation guarantees it; this keeps a
/// mismatch from panicking on slicing).
fn values(t: &Tensor, len: usize, what: &str) -> Result<Vec<f64>> {
    if t.len() != len {
        return Err(Error::operation_error(format!("{what} holds {} elements, expected {len}", t.len())));
    }
    Ok(t.to_f64())
}

fn opt_values(t: Option<&Tensor>, len: usize, what: &str) -> Result<Option<Vec<f64>>> {
    t.map(|t| values(t, len, what)).transpose()
}

/// One direction's weights: `w` is [gates * hidden, inputSize], `r` is [gates * hidden,
/// hidden], the biases [gates * hidden]; rows are ordered by the layout.
struct Weights<'a> {
    w: &'a [f64],
    r: &'a [f64],
    bias: Option<&'a [f64]>,
    recurrent_bias: Option<&'a [f64]>,
    input_size: usize,
    hidden: usize,
}

impl Weights<'_> {
    fn bias(&self, row: usize) -> f64 {
        self.bias.map_or(0.0, |b| b[row])
    }
    fn recurrent_bias(&self, row: usize) -> f64 {
        self.recurrent_bias.map_or(0.0, |b| b[row])
    }
    /// x · W[row]
    fn wx(&self, row: usize, x: &[f64]) -> f64 {
        dot(x, &self.w[row * self.input_size..(row + 1) * self.input_size])
    }
    /// h · R[row]
    fn rh(&self, row: usize, h: &[f64]) -> f64 {
        dot(h, &self.r[row * self.hidden..(row + 1) * self.hidden])
    }
    /// (bias + recurrentBias) + (x·W + h·R) for one gate row.
    fn gate(&self, row: usize, x: &[f64], h: &[f64]) -> f64 {
        (self.bias(row) + self.recurrent_bias(row)) + (self.wx(row, x) + self.rh(row, h))
    }
}

/// Weight, recurrentWeight and the optional biases of every direction, checked and as f64.
struct AllWeights {
    w: Vec<f64>,
    r: Vec<f64>,
    bias: Option<Vec<f64>>,
    recurrent_bias: Option<Vec<f64>>,
    /// Rows per direction: gate count * hidden.
    gates: usize,
    input_size: usize,
    hidden: usize,
}

impl AllWeights {
    fn load(
        cx: &Cx,
        [weight, recurrent_weight]: [Operand; 2],
        [bias, recurrent_bias]: [Option<Operand>; 2],
        nd: usize,
        gates: usize,
        input_size: usize,
        hidden: usize,
    ) -> Result<AllWeights> {
        Ok(AllWeights {
            w: values(cx.t(weight)?, nd * gates * input_size, "weight")?,
            r: values(cx.t(recurrent_weight)?, nd * gates * hidden, "recurrentWeight")?,
            bias: opt_values(cx.opt(bias)?, nd * gates, "bias")?,
            recurrent_bias: opt_values(cx.opt(recurrent_bias)?, nd * gates, "recurrentBias")?,
            gates,
            input_size,
            hidden,
        })
    }

    /// Direction `dir`'s slices.
    fn dir(&self, dir: usize) -> Weights<'_> {
        let (g, is, hs) = (self.gates, self.input_size, self.hidden);
        Weights {
            w: &self.w[dir * g * is..(dir + 1) * g * is],
            r: &self.r[dir * g * hs..(dir + 1) * g * hs],
            bias: self.bias.as_deref().map(|b| &b[dir * g..(dir + 1) * g]),
            recurrent_bias: self.recurrent_bias.as_deref().map(|b| &b[dir * g..(dir + 1) * g]),
            input_size: is,
            hidden: hs,
        }
    }
}

/// The gate order and options of a GRU cell.
struct GruCfg {
    z: usize,
    r: usize,
    n: usize,
    reset_after: bool,
    /// Update/reset gates, then the new gate.
    acts: [RecurrentActivation; 2],
}

impl GruCfg {
    fn new(layout: GruWeightLayout, reset_after: bool, acts: Option<&[RecurrentActivation]>) -> GruCfg {
        let (z, r, n) = match layout {
            GruWeightLayout::Zrn => (0, 1, 2),
            GruWeightLayout::Rzn => (1, 0, 2),
        };
        let acts = match acts {
            Some(&[a, b]) => [a, b],
            _ => [RecurrentActivation::Sigmoid, RecurrentActivation::Tanh],
        };
        GruCfg { z, r, n, reset_after, acts }
    }

    /// One time step for every batch row: `x` is [batch, inputSize], `h` and `out`
    /// [batch, hidden]; `scratch` holds 3 * hidden values (z, r, r ⊙ h of one row).
    fn step(&self, wt: &Weights, x: &[f64], h: &[f64], out: &mut [f64], scratch: &mut [f64]) {
        let hs = wt.hidden;
        let (z, rest) = scratch.split_at_mut(hs);
        let (r, rh) = rest.split_at_mut(hs);
        let batch = h.len() / hs.max(1);
        for b in 0..batch {
            let xb = &x[b * wt.input_size..(b + 1) * wt.input_size];
            let hb = &h[b * hs..(b + 1) * hs];
            for j in 0..hs {
                z[j] = activate(self.acts[0], wt.gate(self.z * hs + j, xb, hb));
                r[j] = activate(self.acts[0], wt.gate(self.r * hs + j, xb, hb));
            }
            if !self.reset_after {
                for k in 0..hs {
                    rh[k] = r[k] * hb[k];
                }
            }
            for j in 0..hs {
                let row = self.n * hs + j;
                let pre = if self.reset_after {
                    wt.bias(row) + (wt.wx(row, xb) + r[j] * (wt.recurrent_bias(row) + wt.rh(row, hb)))
                } else {
                    (wt.bias(row) + wt.recurrent_bias(row)) + (wt.wx(row, xb) + wt.rh(row, rh))
                };
                let n = activate(self.acts[1], pre);
                out[b * hs + j] = z[j] * hb[j] + n * (1.0 - z[j]);
            }
        }
    }
}

/// The gate order and activations of an LSTM cell.
struct LstmCfg {
    i: usize,
    o: usize,
    f: usize,
    g: usize,
    /// Input/forget/output gates, cell gate, filter of the new cell state.
    acts: [RecurrentActivation; 3],
}

impl LstmCfg {
    fn new(layout: LstmWeightLayout, acts: Option<&[RecurrentActivation]>) -> LstmCfg {
        let (i, o, f, g) = match layout {
            LstmWeightLayout::Iofg => (0, 1, 2, 3),
            LstmWeightLayout::Ifgo => (0, 3, 1, 2),
        };
        let acts = match acts {
            Some(&[a, b, c]) => [a, b, c],
            _ => [RecurrentActivation::Sigmoid, RecurrentActivation::Tanh, RecurrentActivation::Tanh],
        };
        LstmCfg { i, o, f, g, acts }
    }

    /// One time step for every batch row. `peephole` is [3 * hidden] in i, o, f order whatever
    /// the layout, and multiplies the incoming cell state `c` (for the output gate too, as the
    /// spec's lstmCell does).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        wt: &Weights,
        peephole: Option<&[f64]>,
        x: &[f64],
        h: &[f64],
        c: &[f64],
        h_out: &mut [f64],
        c_out: &mut [f64],
    ) {
        let hs = wt.hidden;
        let peep = |k: usize, j: usize| peephole.map_or(0.0, |p| p[k * hs + j]);
        let batch = h.len() / hs.max(1);
        let [act_ifo, act_g, act_c] = self.acts;
        for b in 0..batch {
            let xb = &x[b * wt.input_size..(b + 1) * wt.input_size];
            let hb = &h[b * hs..(b + 1) * hs];
            for j in 0..hs {
                let cj = c[b * hs + j];
                let i = activate(act_ifo, cj * peep(0, j) + wt.gate(self.i * hs + j, xb, hb));
                let f = activate(act_ifo, cj * peep(2, j) + wt.gate(self.f * hs + j, xb, hb));
                let g = activate(act_g, wt.gate(self.g * hs + j, xb, hb));
                let o = activate(act_ifo, cj * peep(1, j) + wt.gate(self.o * hs + j, xb, hb));
                let ct = f * cj + i * g;
                c_out[b * hs + j] = ct;
                h_out[b * hs + j] = o * activate(act_c, ct);
            }
        }
    }
}

/// A cell op's input [batch, inputSize] as f64, its batch size, and its weights of `gates`
/// rows.
fn cell_operands(
    cx: &Cx,
    input: Operand,
    weights: [Operand; 2],
    biases: [Option<Operand>; 2],
    gates: usize,
    hidden: usize,
) -> Result<(Vec<f64>, usize, AllWeights)> {
    let input = cx.t(input)?;
    let (batch, input_size) = match input.shape.as_slice() {
        &[batch, input_size] => (batch, input_size),
        s => return Err(Error::operation_error(format!("cell input has shape {s:?}, expected rank 2"))),
    };
    let x = values(input, batch * input_size, "input")?;
    Ok((x, batch, AllWeights::load(cx, weights, biases, 1, gates, input_size, hidden)?))
}

/// The time-step walk of gru and lstm over their input `x` [steps, batch, inputSize].
struct Sequence {
    x: Vec<f64>,
    steps: usize,
    batch: usize,
    input_size: usize,
    hidden: usize,
    nd: usize,
    direction: RecurrentDirection,
    return_sequence: bool,
}

impl Sequence {
    fn new(input: &Tensor, hidden: usize, direction: RecurrentDirection, return_sequence: bool) -> Result<Sequence> {
        let (steps, batch, input_size) = match input.shape.as_slice() {
            &[steps, batch, input_size] => (steps, batch, input_size),
            s => return Err(Error::operation_error(format!("sequence input has shape {s:?}, expected rank 3"))),
        };
        let x = values(input, steps * batch * input_size, "input")?;
        let nd = if direction == RecurrentDirection::Both { 2 } else { 1 };
        Ok(Sequence { x, steps, batch, input_size, hidden, nd, direction, return_sequence })
    }

    /// Runs a cell over the steps per direction, as the spec's decompositions do: the `N` states
    /// (the hidden state first) start from `init` [nd, batch, hidden] or zeros, and
    /// `step(dir, x_t, states, next)` writes the next ones. Gives each state's final value
    /// [nd, batch, hidden], then the hidden state of every step [steps, nd, batch, hidden] if
    /// returnSequence.
    fn run<const N: usize>(
        &self,
        dt: DataType,
        init: [Option<&[f64]>; N],
        mut step: impl FnMut(usize, &[f64], &[Vec<f64>; N], &mut [Vec<f64>; N]),
    ) -> Vec<Tensor> {
        let (steps, nd, state) = (self.steps, self.nd, self.batch * self.hidden);
        let x_len = self.batch * self.input_size;
        let mut finals: [Vec<f64>; N] = std::array::from_fn(|_| vec![0.0; nd * state]);
        let mut seq = if self.return_sequence { vec![0.0; steps * nd * state] } else { Vec::new() };
        let mut cur: [Vec<f64>; N] = std::array::from_fn(|_| vec![0.0; state]);
        let mut next = cur.clone();
        for dir in 0..nd {
            for (s, init) in cur.iter_mut().zip(init) {
                match init {
                    Some(v) => s.copy_from_slice(&v[dir * state..(dir + 1) * state]),
                    None => s.fill(0.0),
                }
            }
            // The backward pass (the second of two directions) walks from the end.
            let backward = self.direction == RecurrentDirection::Backward || dir == 1;
            for i in 0..steps {
                let t = if backward { steps - 1 - i } else { i };
                step(dir, &self.x[t * x_len..(t + 1) * x_len], &cur, &mut next);
                std::mem::swap(&mut cur, &mut next);
                if self.return_sequence {
                    // outputSequence[t][dir]: the backward pass lands at its input's time index.
                    let at = (t * nd + dir) * state;
                    seq[at..at + state].copy_from_slice(&cur[0]);
                }
            }
            for (f, s) in finals.iter_mut().zip(&cur) {
                f[dir * state..(dir + 1) * state].copy_from_slice(s);
            }
        }
        let shape = vec![nd, self.batch, self.hidden];
        let mut outs: Vec<Tensor> = finals.iter().map(|f| Tensor::from_f64(dt, shape.clone(), f)).collect();
        if self.return_sequence {
            outs.push(Tensor::from_f64(dt, vec![steps, nd, self.batch, self.hidden], &seq));
        }
        outs
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru>: gruCell over the steps, per direction.
pub fn gru(cx: &Cx, op: &Gru) -> Result<Vec<Tensor>> {
    let o = &op.options;
    let hs = op.hidden_size as usize;
    let seq = Sequence::new(cx.t(op.input)?, hs, o.direction, o.return_sequence)?;
    let (nd, batch, is) = (seq.nd, seq.batch, seq.input_size);
    let wts = AllWeights::load(cx, [op.weight, op.recurrent_weight], [o.bias, o.recurrent_bias], nd, 3 * hs, is, hs)?;
    let init = opt_values(cx.opt(o.initial_hidden_state)?, nd * batch * hs, "initialHiddenState")?;
    let cfg = GruCfg::new(o.layout, o.reset_after, o.activations.as_deref());
    let mut scratch = vec![0.0; 3 * hs];
    Ok(seq.run(cx.out_type(0), [init.as_deref()], |dir, xt, [h], [next]| {
        cfg.step(&wts.dir(dir), xt, h, next, &mut scratch)
    }))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell>
pub fn gru_cell(cx: &Cx, op: &GruCell) -> Result<Tensor> {
    let o = &op.options;
    let hs = op.hidden_size as usize;
    let weights = [op.weight, op.recurrent_weight];
    let (x, batch, wts) = cell_operands(cx, op.input, weights, [o.bias, o.recurrent_bias], 3 * hs, hs)?;
    let h = values(cx.t(op.hidden_state)?, batch * hs, "hiddenState")?;
    let cfg = GruCfg::new(o.layout, o.reset_after, o.activations.as_deref());
    let mut out = vec![0.0; batch * hs];
    cfg.step(&wts.dir(0), &x, &h, &mut out, &mut vec![0.0; 3 * hs]);
    Ok(Tensor::from_f64(cx.out_type(0), vec![batch, hs], &out))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm>: lstmCell over the steps, per
/// direction.
pub fn lstm(cx: &Cx, op: &Lstm) -> Result<Vec<Tensor>> {
    let o = &op.options;
    let hs = op.hidden_size as usize;
    let seq = Sequence::new(cx.t(op.input)?, hs, o.direction, o.return_sequence)?;
    let (nd, batch, is) = (seq.nd, seq.batch, seq.input_size);
    let wts = AllWeights::load(cx, [op.weight, op.recurrent_weight], [o.bias, o.recurrent_bias], nd, 4 * hs, is, hs)?;
    let peephole = opt_values(cx.opt(o.peephole_weight)?, nd * 3 * hs, "peepholeWeight")?;
    let state = batch * hs;
    let init_h = opt_values(cx.opt(o.initial_hidden_state)?, nd * state, "initialHiddenState")?;
    let init_c = opt_values(cx.opt(o.initial_cell_state)?, nd * state, "initialCellState")?;
    let cfg = LstmCfg::new(o.layout, o.activations.as_deref());
    Ok(seq.run(cx.out_type(0), [init_h.as_deref(), init_c.as_deref()], |dir, xt, [h, c], [h_next, c_next]| {
        let peep = peephole.as_deref().map(|p| &p[dir * 3 * hs..(dir + 1) * 3 * hs]);
        cfg.step(&wts.dir(dir), peep, xt, h, c, h_next, c_next)
    }))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell>
pub fn lstm_cell(cx: &Cx, op: &LstmCell) -> Result<Vec<Tensor>> {
    let o = &op.options;
    let hs = op.hidden_size as usize;
    let weights = [op.weight, op.recurrent_weight];
    let (x, batch, wts) = cell_operands(cx, op.input, weights, [o.bias, o.recurrent_bias], 4 * hs, hs)?;
    let peephole = opt_values(cx.opt(o.peephole_weight)?, 3 * hs, "peepholeWeight")?;
    let h = values(cx.t(op.hidden_state)?, batch * hs, "hiddenState")?;
    let c = values(cx.t(op.cell_state)?, batch * hs, "cellState")?;
    let cfg = LstmCfg::new(o.layout, o.activations.as_deref());
    let (mut h_out, mut c_out) = (vec![0.0; batch * hs], vec![0.0; batch * hs]);
    cfg.step(&wts.dir(0), peephole.as_deref(), &x, &h, &c, &mut h_out, &mut c_out);
    let dt = cx.out_type(0);
    Ok(vec![Tensor::from_f64(dt, vec![batch, hs], &h_out), Tensor::from_f64(dt, vec![batch, hs], &c_out)])
}

#[cfg(test)]
mod tests {
    //! WPT's gru vectors all use relu activations; these check the default sigmoid/tanh
    //! activations, both resetAfter modes with the rzn layout, and lstmCell's ifgo layout with
    //! peepholes (whose order stays i, o, f) against the spec's equations written out.
    use crate::{CpuGraph, Tensor};
    use std::collections::HashMap;
    use webnn_core::ops::*;
    use webnn_core::{DataType, GraphBuilder, Operand, OperandDescriptor};

    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    fn constant(b: &mut GraphBuilder, shape: &[u32], v: &[f64]) -> Operand {
        let t = Tensor::from_f64(DataType::Float32, shape.iter().map(|&d| d as usize).collect(), v);
        b.constant(OperandDescriptor::new(DataType::Float32, shape), t.to_bytes()).unwrap()
    }

    fn run(mut b: GraphBuilder, outs: &[Operand]) -> Vec<f64> {
        let names: Vec<String> = (0..outs.len()).map(|i| format!("out{i}")).collect();
        let named: Vec<(&str, Operand)> = names.iter().map(String::as_str).zip(outs.iter().copied()).collect();
        let g = b.build(&named).unwrap();
        let res = CpuGraph::new(g).unwrap().run(&HashMap::new()).unwrap();
        res.iter().flat_map(|(_, t)| t.to_f64()).collect()
    }

    #[test]
    fn gru_cell_default_activations_rzn() {
        let (x, h) = (0.5, -0.25);
        // Rows in rzn order: reset, update, new.
        let (wr, wz, wn) = (0.3, -0.7, 0.9);
        let (rr, rz, rn) = (0.2, 0.4, -0.6);
        let (br, bz, bn) = (0.1, -0.2, 0.05);
        let (qr, qz, qn) = (-0.3, 0.15, 0.25);
        let z = sigmoid((bz + qz) + (x * wz + h * rz));
        let r = sigmoid((br + qr) + (x * wr + h * rr));
        for reset_after in [false, true] {
            let n = if reset_after {
                (bn + (x * wn + r * (qn + h * rn))).tanh()
            } else {
                ((bn + qn) + (x * wn + (r * h) * rn)).tanh()
            };
            let want = z * h + n * (1.0 - z);
            let mut b = GraphBuilder::new();
            let xi = constant(&mut b, &[1, 1], &[x]);
            let w = constant(&mut b, &[3, 1], &[wr, wz, wn]);
            let rw = constant(&mut b, &[3, 1], &[rr, rz, rn]);
            let hi = constant(&mut b, &[1, 1], &[h]);
            let options = GruCellOptions {
                bias: Some(constant(&mut b, &[3], &[br, bz, bn])),
                recurrent_bias: Some(constant(&mut b, &[3], &[qr, qz, qn])),
                reset_after,
                layout: GruWeightLayout::Rzn,
                ..Default::default()
            };
            let y = b.gru_cell(xi, w, rw, hi, 1, options).unwrap();
            assert_eq!(run(b, &[y]), vec![want as f32 as f64], "resetAfter {reset_after}");
        }
    }

    #[test]
    fn lstm_cell_ifgo_with_peepholes() {
        let (x, h, c) = (0.5, -0.25, 0.75);
        // Rows in ifgo order; peepholes in i, o, f order.
        let (wi, wf, wg, wo) = (0.3, -0.7, 0.9, 0.1);
        let (ri, rf, rg, ro) = (0.2, 0.4, -0.6, 0.8);
        let (bi, bf, bg, bo) = (0.1, -0.2, 0.05, 0.3);
        let (pi, po, pf) = (0.5, -0.4, 0.2);
        let i = sigmoid(c * pi + (bi + (x * wi + h * ri)));
        let f = sigmoid(c * pf + (bf + (x * wf + h * rf)));
        let g = (bg + (x * wg + h * rg)).tanh();
        let o = sigmoid(c * po + (bo + (x * wo + h * ro)));
        let ct = f * c + i * g;
        let ht = o * ct.tanh();
        let mut b = GraphBuilder::new();
        let xi = constant(&mut b, &[1, 1], &[x]);
        let w = constant(&mut b, &[4, 1], &[wi, wf, wg, wo]);
        let rw = constant(&mut b, &[4, 1], &[ri, rf, rg, ro]);
        let hi = constant(&mut b, &[1, 1], &[h]);
        let ci = constant(&mut b, &[1, 1], &[c]);
        let options = LstmCellOptions {
            bias: Some(constant(&mut b, &[4], &[bi, bf, bg, bo])),
            peephole_weight: Some(constant(&mut b, &[3], &[pi, po, pf])),
            layout: LstmWeightLayout::Ifgo,
            ..Default::default()
        };
        let outs = b.lstm_cell(xi, w, rw, hi, ci, 1, options).unwrap();
        assert_eq!(run(b, &outs), vec![ht as f32 as f64, ct as f32 as f64]);
    }
}
