//! Accuracy of the float kernels against the cpu backend (f64, rounded once) over wide input
//! ranges and special values, within WPT's tolerances (tests/wpt/tolerances.json).

mod common;

use common::*;
use webnn_core::ops::*;
use webnn_core::{DataType, GraphBuilder, HostTensor, Operand, OperandDescriptor, Result};

/// Inputs: specials, then pseudo-random values across [-r, r] and around zero.
fn inputs(r: f32) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1e-30,
        -1e-30,
        1e-3,
        -1e-3,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        1e-40,
        -1e-40,
        r,
        -r,
    ];
    v.extend(values(3000, -r, r, 11));
    v.extend(values(1000, -1.0, 1.0, 12));
    v.extend(values(500, -0.01, 0.01, 13));
    v
}

enum Tol {
    Ulp(u64),
    /// |got - want| <= atol, or within 8 ulp where the values are large (tan near its poles).
    Atol(f32),
}

fn check(name: &str, t: DataType, x: &[f32], got: &HostTensor, want: &HostTensor, tol: &Tol) {
    let size = t.bits() as usize / 8;
    let mut worst = 0u64;
    for (k, (g, w)) in got
        .bytes
        .chunks(size)
        .zip(want.bytes.chunks(size))
        .enumerate()
    {
        let d = ulp(t, g, w);
        let ok = match tol {
            Tol::Ulp(n) => d <= *n,
            Tol::Atol(a) => {
                let f = |b: &[u8]| match t {
                    DataType::Float16 => half::f16::from_le_bytes(b.try_into().unwrap()).to_f32(),
                    _ => f32::from_le_bytes(b.try_into().unwrap()),
                };
                let (gv, wv) = (f(g), f(w));
                d <= 8 || (gv - wv).abs() <= *a
            }
        };
        assert!(
            ok,
            "{name} {t}: x = {:e}: wgpu {g:?} vs cpu {w:?} ({d} ulp)",
            x[k]
        );
        if d != u64::MAX {
            worst = worst.max(d);
        }
    }
    eprintln!("{name} {t}: worst {worst} ulp");
}

fn unary_case(
    name: &str,
    range: f32,
    tol32: Tol,
    tol16: Tol,
    build: &dyn Fn(&mut GraphBuilder, Operand) -> Result<Operand>,
) {
    for (t, tol) in [(DataType::Float32, &tol32), (DataType::Float16, &tol16)] {
        let mut x = inputs(range);
        if t == DataType::Float16 {
            x.iter_mut()
                .for_each(|v| *v = half::f16::from_f32(*v).to_f32());
        }
        let n = x.len() as u32;
        let mut b = GraphBuilder::new();
        let input = b.input("x", OperandDescriptor::new(t, &[n])).unwrap();
        let y = build(&mut b, input).unwrap();
        let g = b.build(&[("y", y)]).unwrap();
        let xv = if t == DataType::Float16 {
            f16_tensor(&[n], &x)
        } else {
            f32_tensor(&[n], &x)
        };
        for (got, want) in run_both(&g, &[("x", &xv)]) {
            check(name, t, &x, &got, &want, tol);
        }
    }
}

macro_rules! unary_tests {
    ($($test:ident: $method:ident, $range:expr, $t32:expr, $t16:expr;)*) => {$(
        #[test]
        fn $test() {
            unary_case(stringify!($method), $range, $t32, $t16, &|b, x| b.$method(x, OpOptions::default()));
        }
    )*};
}

const A32: f32 = 1.0 / 1024.0;
const A16: f32 = 1.0 / 512.0;

unary_tests! {
    abs: abs, 1e30, Tol::Ulp(0), Tol::Ulp(0);
    ceil: ceil, 1e9, Tol::Ulp(0), Tol::Ulp(0);
    floor: floor, 1e9, Tol::Ulp(0), Tol::Ulp(0);
    round_even: round_even, 1e9, Tol::Ulp(0), Tol::Ulp(0);
    neg: neg, 1e30, Tol::Ulp(0), Tol::Ulp(0);
    sign: sign, 1e30, Tol::Ulp(0), Tol::Ulp(0);
    relu: relu, 1e30, Tol::Ulp(0), Tol::Ulp(0);
    sqrt: sqrt, 1e30, Tol::Ulp(1), Tol::Ulp(1);
    reciprocal: reciprocal, 1e30, Tol::Ulp(2), Tol::Ulp(2);
    exp: exp, 100.0, Tol::Ulp(32), Tol::Ulp(1);
    log: log, 1e30, Tol::Atol(A32), Tol::Atol(A32);
    sin: sin, 1000.0, Tol::Atol(A32), Tol::Atol(A16);
    cos: cos, 1000.0, Tol::Atol(A32), Tol::Atol(A16);
    tan: tan, 100.0, Tol::Atol(A32), Tol::Atol(A16);
    tanh: tanh, 20.0, Tol::Atol(A32), Tol::Atol(A16);
    erf: erf, 10.0, Tol::Atol(A32), Tol::Atol(A16);
    sigmoid: sigmoid, 100.0, Tol::Ulp(34), Tol::Ulp(10);
    gelu: gelu, 10.0, Tol::Ulp(18), Tol::Ulp(18);
    softplus: softplus, 100.0, Tol::Ulp(18), Tol::Ulp(18);
    softsign: softsign, 1e6, Tol::Ulp(3), Tol::Ulp(3);
    hard_swish: hard_swish, 10.0, Tol::Ulp(4), Tol::Ulp(4);
}

#[test]
fn elu() {
    let opts = || EluOptions {
        alpha: 1.5,
        ..Default::default()
    };
    unary_case("elu", 20.0, Tol::Ulp(18), Tol::Ulp(18), &|b, x| {
        b.elu(x, opts())
    });
}

#[test]
fn hard_sigmoid() {
    let opts = || HardSigmoidOptions {
        alpha: 0.3,
        beta: 0.4,
        ..Default::default()
    };
    unary_case("hardSigmoid", 10.0, Tol::Ulp(2), Tol::Ulp(2), &|b, x| {
        b.hard_sigmoid(x, opts())
    });
}

#[test]
fn leaky_relu_and_linear() {
    let lr = || LeakyReluOptions {
        alpha: 0.1,
        ..Default::default()
    };
    unary_case("leakyRelu", 1e6, Tol::Ulp(1), Tol::Ulp(2), &|b, x| {
        b.leaky_relu(x, lr())
    });
    let lin = || LinearOptions {
        alpha: 1.7,
        beta: -0.3,
        ..Default::default()
    };
    unary_case("linear", 1e3, Tol::Ulp(2), Tol::Ulp(2), &|b, x| {
        b.linear(x, lin())
    });
}

#[test]
fn clamp() {
    let opts = || ClampOptions {
        min_value: Some(MLNumber::Double(-0.7)),
        max_value: Some(MLNumber::Double(3.3)),
        ..Default::default()
    };
    unary_case("clamp", 10.0, Tol::Ulp(0), Tol::Ulp(0), &|b, x| {
        b.clamp(x, opts())
    });
}

#[test]
fn pow_and_div() {
    for (name, bx, by, tol) in [
        (
            "pow integer exponents",
            (0.1f32, 20.0f32),
            (-12i32, 12i32),
            32u64,
        ),
        ("pow fractional exponents", (0.01, 50.0), (-3, 3), 32),
    ] {
        let n = 2000u32;
        let mut x = values(n as usize, bx.0, bx.1, 21);
        // Negative bases with integer exponents.
        x.iter_mut().step_by(3).for_each(|v| *v = -*v);
        let mut y = values(n as usize, by.0 as f32, by.1 as f32, 22);
        if name.contains("integer") {
            y.iter_mut().for_each(|v| *v = v.round());
        } else {
            x.iter_mut().for_each(|v| *v = v.abs());
        }
        let mut b = GraphBuilder::new();
        let a = b
            .input("a", OperandDescriptor::new(DataType::Float32, &[n]))
            .unwrap();
        let c = b
            .input("b", OperandDescriptor::new(DataType::Float32, &[n]))
            .unwrap();
        let p = b.pow(a, c, OpOptions::default()).unwrap();
        let d = b.div(a, c, OpOptions::default()).unwrap();
        let g = b.build(&[("p", p), ("d", d)]).unwrap();
        let outs = run_both(
            &g,
            &[("a", &f32_tensor(&[n], &x)), ("b", &f32_tensor(&[n], &y))],
        );
        check(
            name,
            DataType::Float32,
            &x,
            &outs[0].0,
            &outs[0].1,
            &Tol::Ulp(tol),
        );
        check(
            "div",
            DataType::Float32,
            &x,
            &outs[1].0,
            &outs[1].1,
            &Tol::Ulp(2),
        );
    }
}
