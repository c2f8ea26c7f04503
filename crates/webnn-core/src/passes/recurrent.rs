//! gru, gruCell, lstm and lstmCell as matrix products and element-wise ops: the spec's
//! decompositions (<https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru> and the sections
//! after it), with the additions in the order of its emulation code. float16 networks are
//! computed in float32 and cast back once, so the many steps round once.

use crate::builder::GraphBuilder;
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::graph::Operand;
use crate::ops::*;
use crate::shape::OperandDescriptor;

/// Emits ops into the builder, labelled like the op they decompose.
struct Emit<'a> {
    b: &'a mut GraphBuilder,
    label: String,
}

impl Emit<'_> {
    fn o(&self) -> OpOptions {
        OpOptions {
            label: self.label.clone(),
        }
    }
    fn shape(&self, x: Operand) -> Result<Vec<u32>> {
        self.b
            .desc(x)?
            .require_static("a recurrent network's operands")
    }
    fn add(&mut self, x: Operand, y: Operand) -> Result<Operand> {
        let o = self.o();
        self.b.add(x, y, o)
    }
    fn mul(&mut self, x: Operand, y: Operand) -> Result<Operand> {
        let o = self.o();
        self.b.mul(x, y, o)
    }
    /// The sum of two optional operands.
    fn sum_opt(&mut self, x: Option<Operand>, y: Option<Operand>) -> Result<Option<Operand>> {
        Ok(match (x, y) {
            (Some(x), Some(y)) => Some(self.add(x, y)?),
            (x, None) => x,
            (None, y) => y,
        })
    }
    /// x · wᵀ for x [batch, k] and w [n, k].
    fn gemm_t(&mut self, x: Operand, w: Operand) -> Result<Operand> {
        let options = GemmOptions {
            label: self.label.clone(),
            b_transpose: true,
            ..Default::default()
        };
        self.b.gemm(x, w, options)
    }
    /// `len` entries from `start` along the last axis.
    fn last_axis(&mut self, x: Operand, start: u32, len: u32) -> Result<Operand> {
        let s = self.shape(x)?;
        let mut starts = vec![0; s.len()];
        let mut sizes = s.clone();
        *starts.last_mut().ok_or_else(rank0)? = start;
        *sizes.last_mut().ok_or_else(rank0)? = len;
        let options = SliceOptions {
            label: self.label.clone(),
            strides: None,
        };
        self.b.slice(x, starts, sizes, options)
    }
    /// Rows `start..start + len` of a 2-D operand.
    fn rows(&mut self, x: Operand, start: u32, len: u32) -> Result<Operand> {
        let s = self.shape(x)?;
        let options = SliceOptions {
            label: self.label.clone(),
            strides: None,
        };
        self.b.slice(x, vec![start, 0], vec![len, s[1]], options)
    }
    /// Entry `k` of axis 0, without that axis.
    fn take(&mut self, x: Operand, k: u32) -> Result<Operand> {
        let s = self.shape(x)?;
        let mut starts = vec![0; s.len()];
        let mut sizes = s.clone();
        starts[0] = k;
        sizes[0] = 1;
        let options = SliceOptions {
            label: self.label.clone(),
            strides: None,
        };
        let one = self.b.slice(x, starts, sizes, options)?;
        let o = self.o();
        self.b
            .reshape(one, s[1..].iter().map(|&d| d.into()).collect(), o)
    }
    /// `x` with a leading axis of size 1.
    fn lift(&mut self, x: Operand) -> Result<Operand> {
        let mut s: Vec<crate::shape::Dim> = self.shape(x)?.iter().map(|&d| d.into()).collect();
        s.insert(0, 1.into());
        let o = self.o();
        self.b.reshape(x, s, o)
    }
    fn concat0(&mut self, parts: &[Operand]) -> Result<Operand> {
        if parts.len() == 1 {
            return Ok(parts[0]);
        }
        let o = self.o();
        self.b.concat(parts, 0, o)
    }
    fn act(&mut self, a: RecurrentActivation, x: Operand) -> Result<Operand> {
        let o = self.o();
        match a {
            RecurrentActivation::Relu => self.b.relu(x, o),
            RecurrentActivation::Sigmoid => self.b.sigmoid(x, o),
            RecurrentActivation::Tanh => self.b.tanh(x, o),
        }
    }
    /// float32 for the computation.
    fn f32(&mut self, x: Operand) -> Result<Operand> {
        if self.b.desc(x)?.data_type == DataType::Float32 {
            return Ok(x);
        }
        let o = self.o();
        self.b.cast(x, DataType::Float32, o)
    }
    fn f32_opt(&mut self, x: Option<Operand>) -> Result<Option<Operand>> {
        x.map(|x| self.f32(x)).transpose()
    }
    /// Back to the network's type.
    fn to(&mut self, t: DataType, x: Operand) -> Result<Operand> {
        if t == DataType::Float32 {
            return Ok(x);
        }
        let o = self.o();
        self.b.cast(x, t, o)
    }
    fn zeros(&mut self, shape: &[u32]) -> Result<Operand> {
        let desc = OperandDescriptor::new(DataType::Float32, shape);
        let bytes = desc
            .max_byte_length()
            .ok_or_else(|| Error::type_error("the state is too large"))?;
        self.b.constant(desc, vec![0; bytes as usize])
    }
    fn one(&mut self) -> Result<Operand> {
        self.b
            .constant_scalar(DataType::Float32, MLNumber::Double(1.0))
    }
}

fn rank0() -> Error {
    Error::operation_error("a recurrent operand has rank 0")
}

/// The decomposition of `op` (a recurrent op whose operands are already in `b`): its outputs,
/// in the op's output order.
pub(super) fn expand(b: &mut GraphBuilder, op: &Op) -> Result<Vec<Operand>> {
    let mut e = Emit {
        b,
        label: op.label().to_owned(),
    };
    let t = e.b.desc(op.operands()[0])?.data_type;
    let outs = match op {
        Op::GruCell(a) => vec![gru_cell_op(&mut e, a)?],
        Op::LstmCell(a) => lstm_cell_op(&mut e, a)?,
        Op::Gru(a) => gru(&mut e, a)?,
        Op::Lstm(a) => lstm(&mut e, a)?,
        other => {
            return Err(Error::operation_error(format!(
                "{} has no decomposition",
                other.name()
            )));
        }
    };
    outs.into_iter().map(|o| e.to(t, o)).collect()
}

/// One direction's GRU weights, in float32.
struct GruWeights {
    w: Operand,
    r: Operand,
    bias: Option<Operand>,
    recurrent_bias: Option<Operand>,
}

struct GruConfig {
    hidden: u32,
    /// Positions of the update and reset gates among the first two (the new gate is third
    /// in both layouts).
    z: u32,
    r: u32,
    reset_after: bool,
    acts: [RecurrentActivation; 2],
}

impl GruConfig {
    fn new(
        hidden: u32,
        layout: GruWeightLayout,
        reset_after: bool,
        acts: &Option<Vec<RecurrentActivation>>,
    ) -> GruConfig {
        let (z, r) = match layout {
            GruWeightLayout::Zrn => (0, 1),
            GruWeightLayout::Rzn => (1, 0),
        };
        let acts = match acts.as_deref() {
            Some(&[a, b]) => [a, b],
            _ => [RecurrentActivation::Sigmoid, RecurrentActivation::Tanh],
        };
        GruConfig {
            hidden,
            z,
            r,
            reset_after,
            acts,
        }
    }
}

/// One GRU step: x [batch, inputSize], h [batch, hidden] -> the next h.
fn gru_cell(
    e: &mut Emit,
    c: &GruConfig,
    wt: &GruWeights,
    x: Operand,
    h: Operand,
) -> Result<Operand> {
    let hs = c.hidden;
    let xw = e.gemm_t(x, wt.w)?;
    let r_zr = e.rows(wt.r, 0, 2 * hs)?;
    let hr = e.gemm_t(h, r_zr)?;
    let biases = e.sum_opt(wt.bias, wt.recurrent_bias)?;
    let gate = |e: &mut Emit, k: u32| -> Result<Operand> {
        let (xk, hk) = (e.last_axis(xw, k * hs, hs)?, e.last_axis(hr, k * hs, hs)?);
        let s = e.add(xk, hk)?;
        let pre = match biases {
            Some(bb) => {
                let bk = e.last_axis(bb, k * hs, hs)?;
                e.add(bk, s)?
            }
            None => s,
        };
        e.act(c.acts[0], pre)
    };
    let z = gate(e, c.z)?;
    let r = gate(e, c.r)?;
    let xn = e.last_axis(xw, 2 * hs, hs)?;
    let r_n = e.rows(wt.r, 2 * hs, hs)?;
    let bias_n = wt.bias.map(|b| e.last_axis(b, 2 * hs, hs)).transpose()?;
    let rbias_n = wt
        .recurrent_bias
        .map(|b| e.last_axis(b, 2 * hs, hs))
        .transpose()?;
    let pre = if c.reset_after {
        // bias + (x·Wᵀ + r ⊙ (recurrentBias + h·Rᵀ))
        let hn = e.gemm_t(h, r_n)?;
        let hn = match rbias_n {
            Some(rb) => e.add(rb, hn)?,
            None => hn,
        };
        let rh = e.mul(r, hn)?;
        let s = e.add(xn, rh)?;
        match bias_n {
            Some(b) => e.add(b, s)?,
            None => s,
        }
    } else {
        // (bias + recurrentBias) + (x·Wᵀ + (r ⊙ h)·Rᵀ)
        let rh = e.mul(r, h)?;
        let hn = e.gemm_t(rh, r_n)?;
        let s = e.add(xn, hn)?;
        match e.sum_opt(bias_n, rbias_n)? {
            Some(bb) => e.add(bb, s)?,
            None => s,
        }
    };
    let n = e.act(c.acts[1], pre)?;
    // z ⊙ h + n ⊙ (1 - z)
    let zh = e.mul(z, h)?;
    let one = e.one()?;
    let o = e.o();
    let one_minus_z = e.b.sub(one, z, o)?;
    let nz = e.mul(n, one_minus_z)?;
    e.add(zh, nz)
}

fn gru_cell_op(e: &mut Emit, a: &GruCell) -> Result<Operand> {
    let o = &a.options;
    let c = GruConfig::new(a.hidden_size, o.layout, o.reset_after, &o.activations);
    let wt = GruWeights {
        w: e.f32(a.weight)?,
        r: e.f32(a.recurrent_weight)?,
        bias: e.f32_opt(o.bias)?,
        recurrent_bias: e.f32_opt(o.recurrent_bias)?,
    };
    let (x, h) = (e.f32(a.input)?, e.f32(a.hidden_state)?);
    gru_cell(e, &c, &wt, x, h)
}

/// The steps of a sequence and the directions that walk them.
struct Walk {
    steps: u32,
    dirs: u32,
    direction: RecurrentDirection,
}

impl Walk {
    fn new(steps: u32, direction: RecurrentDirection) -> Walk {
        let dirs = if direction == RecurrentDirection::Both {
            2
        } else {
            1
        };
        Walk {
            steps,
            dirs,
            direction,
        }
    }
    /// The time index of step i of direction d: the backward pass (the second of two
    /// directions) walks from the end.
    fn time(&self, d: u32, i: u32) -> u32 {
        if self.direction == RecurrentDirection::Backward || d == 1 {
            self.steps - 1 - i
        } else {
            i
        }
    }
}

/// A sequence op's walk: its input [steps, batch, inputSize] in float32 and the directions.
struct Sequence {
    input: Operand,
    batch: u32,
    hidden: u32,
    walk: Walk,
    return_sequence: bool,
}

impl Sequence {
    fn new(
        e: &mut Emit,
        input: Operand,
        steps: u32,
        hidden: u32,
        direction: RecurrentDirection,
        return_sequence: bool,
    ) -> Result<Sequence> {
        let input = e.f32(input)?;
        let batch = e.shape(input)?[1];
        Ok(Sequence {
            input,
            batch,
            hidden,
            walk: Walk::new(steps, direction),
            return_sequence,
        })
    }

    /// Runs `cell` over the steps per direction, as the spec's decompositions do. The states
    /// (the hidden state first) start from `inits[k]` [dirs, batch, hidden] or zeros; `cell`
    /// gets direction d's weights (`weights(d)`), the step's input and the states and gives
    /// the next states. The outputs: each state's final value [dirs, batch, hidden], then,
    /// with returnSequence, the hidden state of every step [steps, dirs, batch, hidden] (a
    /// backward pass's state at its input's time index).
    fn run<W>(
        &self,
        e: &mut Emit,
        inits: &[Option<Operand>],
        weights: impl Fn(&mut Emit, u32) -> Result<W>,
        cell: impl Fn(&mut Emit, &W, Operand, &[Operand]) -> Result<Vec<Operand>>,
    ) -> Result<Vec<Operand>> {
        let walk = &self.walk;
        let mut finals = vec![Vec::new(); inits.len()];
        let mut seq = vec![vec![None; walk.dirs as usize]; walk.steps as usize];
        for d in 0..walk.dirs {
            let wt = weights(e, d)?;
            let mut states = Vec::with_capacity(inits.len());
            for init in inits {
                states.push(match init {
                    Some(s) => e.take(*s, d)?,
                    None => e.zeros(&[self.batch, self.hidden])?,
                });
            }
            for i in 0..walk.steps {
                let t = walk.time(d, i);
                let x = e.take(self.input, t)?;
                states = cell(e, &wt, x, &states)?;
                seq[t as usize][d as usize] = Some(states[0]);
            }
            for (f, s) in finals.iter_mut().zip(states) {
                f.push(s);
            }
        }
        let mut outs = Vec::new();
        for per_dir in finals {
            let lifted: Vec<Operand> = per_dir.iter().map(|&h| e.lift(h)).collect::<Result<_>>()?;
            outs.push(e.concat0(&lifted)?);
        }
        if self.return_sequence {
            let mut steps = Vec::with_capacity(seq.len());
            for per_dir in seq {
                let lifted: Vec<Operand> = per_dir
                    .into_iter()
                    .flatten()
                    .map(|h| e.lift(h))
                    .collect::<Result<_>>()?;
                let joined = e.concat0(&lifted)?;
                steps.push(e.lift(joined)?);
            }
            outs.push(e.concat0(&steps)?);
        }
        Ok(outs)
    }
}

/// Direction d's slice of an optional per-direction operand.
fn take_opt(e: &mut Emit, x: Option<Operand>, d: u32) -> Result<Option<Operand>> {
    x.map(|x| e.take(x, d)).transpose()
}

fn gru(e: &mut Emit, a: &Gru) -> Result<Vec<Operand>> {
    let o = &a.options;
    let c = GruConfig::new(a.hidden_size, o.layout, o.reset_after, &o.activations);
    let seq = Sequence::new(
        e,
        a.input,
        a.steps,
        a.hidden_size,
        o.direction,
        o.return_sequence,
    )?;
    let (w, r) = (e.f32(a.weight)?, e.f32(a.recurrent_weight)?);
    let (bias, rbias) = (e.f32_opt(o.bias)?, e.f32_opt(o.recurrent_bias)?);
    let init = e.f32_opt(o.initial_hidden_state)?;
    let weights = |e: &mut Emit, d: u32| -> Result<GruWeights> {
        Ok(GruWeights {
            w: e.take(w, d)?,
            r: e.take(r, d)?,
            bias: take_opt(e, bias, d)?,
            recurrent_bias: take_opt(e, rbias, d)?,
        })
    };
    seq.run(e, &[init], weights, |e, wt, x, s| {
        Ok(vec![gru_cell(e, &c, wt, x, s[0])?])
    })
}

/// One direction's LSTM weights, in float32.
struct LstmWeights {
    w: Operand,
    r: Operand,
    bias: Option<Operand>,
    recurrent_bias: Option<Operand>,
    /// [3 * hidden]: input, output and forget gates' weights of the cell state.
    peephole: Option<Operand>,
}

struct LstmConfig {
    hidden: u32,
    /// Gate positions of the layout: input, output, forget, cell.
    i: u32,
    o: u32,
    f: u32,
    g: u32,
    acts: [RecurrentActivation; 3],
}

impl LstmConfig {
    fn new(
        hidden: u32,
        layout: LstmWeightLayout,
        acts: &Option<Vec<RecurrentActivation>>,
    ) -> LstmConfig {
        let (i, o, f, g) = match layout {
            LstmWeightLayout::Iofg => (0, 1, 2, 3),
            LstmWeightLayout::Ifgo => (0, 3, 1, 2),
        };
        let acts = match acts.as_deref() {
            Some(&[a, b, c]) => [a, b, c],
            _ => [
                RecurrentActivation::Sigmoid,
                RecurrentActivation::Tanh,
                RecurrentActivation::Tanh,
            ],
        };
        LstmConfig {
            hidden,
            i,
            o,
            f,
            g,
            acts,
        }
    }
}

/// One LSTM step: x [batch, inputSize], h and c [batch, hidden] -> the next (h, c).
fn lstm_cell(
    e: &mut Emit,
    cfg: &LstmConfig,
    wt: &LstmWeights,
    x: Operand,
    h: Operand,
    c: Operand,
) -> Result<(Operand, Operand)> {
    let hs = cfg.hidden;
    // (bias + recurrentBias) + (x·Wᵀ + h·Rᵀ), every gate at once.
    let xw = e.gemm_t(x, wt.w)?;
    let hr = e.gemm_t(h, wt.r)?;
    let s = e.add(xw, hr)?;
    let gates = match e.sum_opt(wt.bias, wt.recurrent_bias)? {
        Some(bb) => e.add(bb, s)?,
        None => s,
    };
    // peephole ⊙ c + gate, for the gates that see the cell state.
    let gate =
        |e: &mut Emit, k: u32, peep: Option<u32>, act: RecurrentActivation| -> Result<Operand> {
            let g = e.last_axis(gates, k * hs, hs)?;
            let pre = match (wt.peephole, peep) {
                (Some(p), Some(j)) => {
                    let pj = e.last_axis(p, j * hs, hs)?;
                    let cp = e.mul(c, pj)?;
                    e.add(cp, g)?
                }
                _ => g,
            };
            e.act(act, pre)
        };
    let i = gate(e, cfg.i, Some(0), cfg.acts[0])?;
    let f = gate(e, cfg.f, Some(2), cfg.acts[0])?;
    let g = gate(e, cfg.g, None, cfg.acts[1])?;
    let o = gate(e, cfg.o, Some(1), cfg.acts[0])?;
    let fc = e.mul(f, c)?;
    let ig = e.mul(i, g)?;
    let c_next = e.add(fc, ig)?;
    let ac = e.act(cfg.acts[2], c_next)?;
    let h_next = e.mul(o, ac)?;
    Ok((h_next, c_next))
}

fn lstm_cell_op(e: &mut Emit, a: &LstmCell) -> Result<Vec<Operand>> {
    let o = &a.options;
    let cfg = LstmConfig::new(a.hidden_size, o.layout, &o.activations);
    let wt = LstmWeights {
        w: e.f32(a.weight)?,
        r: e.f32(a.recurrent_weight)?,
        bias: e.f32_opt(o.bias)?,
        recurrent_bias: e.f32_opt(o.recurrent_bias)?,
        peephole: e.f32_opt(o.peephole_weight)?,
    };
    let (x, h, c) = (
        e.f32(a.input)?,
        e.f32(a.hidden_state)?,
        e.f32(a.cell_state)?,
    );
    let (h, c) = lstm_cell(e, &cfg, &wt, x, h, c)?;
    Ok(vec![h, c])
}

fn lstm(e: &mut Emit, a: &Lstm) -> Result<Vec<Operand>> {
    let o = &a.options;
    let cfg = LstmConfig::new(a.hidden_size, o.layout, &o.activations);
    let seq = Sequence::new(
        e,
        a.input,
        a.steps,
        a.hidden_size,
        o.direction,
        o.return_sequence,
    )?;
    let (w, r) = (e.f32(a.weight)?, e.f32(a.recurrent_weight)?);
    let (bias, rbias, peep) = (
        e.f32_opt(o.bias)?,
        e.f32_opt(o.recurrent_bias)?,
        e.f32_opt(o.peephole_weight)?,
    );
    let inits = [
        e.f32_opt(o.initial_hidden_state)?,
        e.f32_opt(o.initial_cell_state)?,
    ];
    let weights = |e: &mut Emit, d: u32| -> Result<LstmWeights> {
        Ok(LstmWeights {
            w: e.take(w, d)?,
            r: e.take(r, d)?,
            bias: take_opt(e, bias, d)?,
            recurrent_bias: take_opt(e, rbias, d)?,
            peephole: take_opt(e, peep, d)?,
        })
    };
    seq.run(e, &inits, weights, |e, wt, x, s| {
        let (h, c) = lstm_cell(e, &cfg, wt, x, s[0], s[1])?;
        Ok(vec![h, c])
    })
}
