//! cast between any two of float32, float16 and the integer types of 8, 32 or 64 bits: the
//! float16 pass's conversions at a float16 graph's inputs and outputs, and a model's own
//! casts (index arithmetic in int64 and int32, masks). One pass per element with the
//! reference's arithmetic (webnn-cpu `parametric.rs`; casts between the other types call its
//! `convert`), so results are bit for bit the same: float16 rounds to nearest even (F16C
//! where the machine has it), integers become the nearest float, floats become integers
//! truncated toward zero, saturated, NaN giving 0, and integers wrap to narrower ones.

use crate::exec::{Ctx, Step, Values, TASK};
use crate::pool::SharedMut;
use crate::plan::Planner;
use half::slice::HalfFloatSliceExt;
use half::f16;
use webnn_core::ops::Cast;
use webnn_core::{DataType, Error, Result};
use webnn_cpu::kernels::elementwise::{convert, Elem};
use webnn_cpu::{Data, Tensor};

pub(crate) struct CastStep {
    input: usize,
    out: usize,
    to: DataType,
}

/// Whether the step converts `from` to `to`: any two of float32, float16 and the 8, 32 and
/// 64-bit integers (int4/uint4, packed two to a byte, stay on the reference).
fn handles(from: DataType, to: DataType) -> bool {
    from.bits() >= 8 && to.bits() >= 8 && from != to
}

pub(crate) fn plan(p: &mut Planner, n: usize, a: &Cast) -> Option<Step> {
    if !handles(p.orig.desc(a.input).data_type, a.data_type) {
        return None;
    }
    let input = p.logical(a.input);
    Some(Step::Cast(Box::new(CastStep { input, out: p.orig.nodes[n].outputs[0].index(), to: a.data_type })))
}

impl CastStep {
    pub(crate) fn describe(&self) -> String {
        format!("cast to {}", self.to)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (shape, len) = {
            let x = values.get(self.input)?;
            (x.shape.clone(), x.data.len())
        };
        if self.to == DataType::Float32 {
            let mut y = values.alloc(len);
            match &values.get(self.input)?.data {
                Data::F16(v) => chunks(ctx, v, &mut y, |x, y| x.convert_to_f32_slice(y)),
                Data::I8(v) => chunks(ctx, v, &mut y, |x, y| y.iter_mut().zip(x).for_each(|(y, &x)| *y = x as f32)),
                Data::U8(v) => chunks(ctx, v, &mut y, |x, y| y.iter_mut().zip(x).for_each(|(y, &x)| *y = x as f32)),
                Data::I32(v) => chunks(ctx, v, &mut y, |x, y| y.iter_mut().zip(x).for_each(|(y, &x)| *y = x as f32)),
                Data::U32(v) => chunks(ctx, v, &mut y, |x, y| y.iter_mut().zip(x).for_each(|(y, &x)| *y = x as f32)),
                Data::I64(v) => chunks(ctx, v, &mut y, |x, y| y.iter_mut().zip(x).for_each(|(y, &x)| *y = x as f32)),
                Data::U64(v) => chunks(ctx, v, &mut y, |x, y| y.iter_mut().zip(x).for_each(|(y, &x)| *y = x as f32)),
                other => return Err(unexpected(other.data_type(), self.to)),
            }
            values.put(self.out, shape, y);
            return Ok(());
        }
        if values.get(self.input)?.data.data_type() != DataType::Float32 {
            let data = convert_any(ctx, &values.get(self.input)?.data, self.to)?;
            values.put_tensor(self.out, Tensor::new(shape, data));
            return Ok(());
        }
        let x = values.f32(self.input)?;
        let data = match self.to {
            DataType::Float16 => {
                let mut y = vec![f16::ZERO; len];
                y.convert_from_f32_slice(x);
                Data::F16(y)
            }
            DataType::Int8 => Data::I8(x.iter().map(|&v| v as i8).collect()),
            DataType::Uint8 => Data::U8(x.iter().map(|&v| v as u8).collect()),
            DataType::Int32 => Data::I32(x.iter().map(|&v| v as i32).collect()),
            DataType::Uint32 => Data::U32(x.iter().map(|&v| v as u32).collect()),
            DataType::Int64 => Data::I64(x.iter().map(|&v| v as i64).collect()),
            DataType::Uint64 => Data::U64(x.iter().map(|&v| v as u64).collect()),
            to => return Err(unexpected(DataType::Float32, to)),
        };
        values.put_tensor(self.out, Tensor::new(shape, data));
        Ok(())
    }
}

/// `f(x chunk, y chunk)` over chunks of `TASK` elements across the pool.
fn chunks<T: Sync>(ctx: &Ctx, x: &[T], y: &mut [f32], f: impl Fn(&[T], &mut [f32]) + Sync) {
    let len = x.len().min(y.len());
    let dst = SharedMut::new(y);
    ctx.pool.run(len.div_ceil(TASK), &|t| {
        let range = t * TASK..((t + 1) * TASK).min(len);
        // SAFETY: each task writes its own chunk.
        f(&x[range.clone()], unsafe { dst.range(range.start, range.len()) });
    });
}

/// `x` cast to `to` (neither float32) with the reference's element conversion
/// (`webnn_cpu`'s `convert`: integers wrap, floats truncate and saturate), in chunks across the
/// pool.
fn convert_any(ctx: &Ctx, x: &Data, to: DataType) -> Result<Data> {
    fn into<S: Elem + Sync, D: Elem + Default + Send>(ctx: &Ctx, v: &[S]) -> Vec<D> {
        let mut out = vec![D::default(); v.len()];
        let dst = SharedMut::new(&mut out);
        ctx.pool.run(v.len().div_ceil(TASK), &|t| {
            let range = t * TASK..((t + 1) * TASK).min(v.len());
            // SAFETY: each task writes its own chunk.
            convert(&v[range.clone()], unsafe { dst.range(range.start, range.len()) });
        });
        out
    }
    macro_rules! to {
        ($v:expr) => {
            match to {
                DataType::Float16 => Data::F16(into(ctx, $v)),
                DataType::Int8 => Data::I8(into(ctx, $v)),
                DataType::Uint8 => Data::U8(into(ctx, $v)),
                DataType::Int32 => Data::I32(into(ctx, $v)),
                DataType::Uint32 => Data::U32(into(ctx, $v)),
                DataType::Int64 => Data::I64(into(ctx, $v)),
                DataType::Uint64 => Data::U64(into(ctx, $v)),
                other => return Err(unexpected(x.data_type(), other)),
            }
        };
    }
    Ok(match x {
        Data::F16(v) => to!(v),
        Data::I8(v) => to!(v),
        Data::U8(v) => to!(v),
        Data::I32(v) => to!(v),
        Data::U32(v) => to!(v),
        Data::I64(v) => to!(v),
        Data::U64(v) => to!(v),
        other => return Err(unexpected(other.data_type(), to)),
    })
}

fn unexpected(from: DataType, to: DataType) -> Error {
    Error::operation_error(format!("cast: the plan has no {from} to {to} step"))
}

#[cfg(test)]
mod tests {
    use webnn_core::DataType::*;

    #[test]
    fn handles_every_pair_but_int4() {
        assert!(super::handles(Float16, Float32) && super::handles(Float32, Int64));
        assert!(super::handles(Int32, Int64) && super::handles(Float16, Int32) && super::handles(Uint8, Int8));
        assert!(!super::handles(Float32, Float32) && !super::handles(Float32, Int4) && !super::handles(Uint4, Int8));
    }
}
