//! Where MobileNetV2's time goes on the fast backend, step by step:
//!
//!     cargo run --release -p webnn-fast --example profile [threads] [runs]

use std::collections::HashMap;
use webnn_cpu::Tensor;
use webnn_fast::FastBackend;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let threads = args.next().flatten().unwrap_or(1);
    let runs = args.next().flatten().unwrap_or(30);
    let graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
    let image = webnn_models::sample_image(11);
    let fast = FastBackend::new(threads);
    let compiled = fast.compile_graph(&graph).expect("compile");
    let input = Tensor::from_bytes(&image.desc, &image.bytes).expect("input");
    let inputs = HashMap::from([("input".to_owned(), input)]);
    let steps = compiled.profile(&inputs, runs).expect("profile");
    let total: f64 = steps.iter().map(|(_, t)| t).sum();
    for (name, t) in &steps {
        println!("{:8.1} us {:5.1}%  {name}", t * 1e6, 100.0 * t / total);
    }
    println!(
        "{:8.1} us total (sum of step medians), {threads} thread(s)",
        total * 1e6
    );
}
