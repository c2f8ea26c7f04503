//! Whole MobileNetV2 on the fast backend: close to the reference interpreter, fully on fast
//! kernels, and bit-identical for 1, 2 and 3 threads.

mod common;

use common::{floats, run};
use webnn_fast::FastBackend;

#[test]
fn mobilenet_v2_matches_the_reference_for_every_thread_count() {
    let graph = webnn_models::mobilenet_v2(7).unwrap();
    let image = webnn_models::sample_image(11);
    let inputs = vec![("input".to_owned(), image)];
    let want = run(&webnn_cpu::CpuBackend, &graph, &inputs);

    let fast = FastBackend::new(1);
    let (fast_steps, reference_steps) = fast.compile_graph(&graph).unwrap().step_counts();
    // The global pool reads the NHWC features directly; the reshape and softmax are fast too.
    assert_eq!(reference_steps, 0, "{fast_steps} fast steps");

    let got = run(&fast, &graph, &inputs);
    let logits = (&want[0], &got[0]);
    let worst = logits
        .0
        .iter()
        .zip(logits.1)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    let scale = logits.0.iter().fold(0f32, |m, v| m.max(v.abs()));
    assert!(
        worst <= 1e-4 * scale.max(1.0),
        "max |diff| {worst} on logits up to {scale}"
    );
    let probs = want[1]
        .iter()
        .zip(&got[1])
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(probs <= 1e-5, "probabilities differ by {probs}");

    for threads in [2, 3] {
        let other = run(&FastBackend::new(threads), &graph, &inputs);
        for (a, b) in got.iter().zip(&other) {
            assert!(
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "{threads} threads differ from 1"
            );
        }
    }
    // A compiled graph gives the same result when dispatched again (reused buffers).
    let mut exe = webnn_core::Backend::compile(&FastBackend::new(2), &graph).unwrap();
    let feeds = [("input", &inputs[0].1)];
    let first = exe.dispatch(&feeds).unwrap();
    let second = exe.dispatch(&feeds).unwrap();
    assert_eq!(first, second);
    assert_eq!(floats(&first[0].1.bytes), got[0]);
}
