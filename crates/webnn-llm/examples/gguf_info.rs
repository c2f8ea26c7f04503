//! Prints a GGUF file's metadata (arrays by length) and tensor directory.
//!
//!     cargo run -p webnn-llm --example gguf_info [FILE]

use webnn_llm::gguf::{Gguf, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).map(Into::into).unwrap_or_else(webnn_llm::smollm2_path);
    let g = Gguf::read(&path)?;
    println!("GGUF v{}: {} metadata keys, {} tensors", g.version, g.metadata.len(), g.tensors.len());
    for (k, v) in &g.metadata {
        match v {
            Value::Array(a) => println!("{k}: array of {}", a.len()),
            Value::Str(s) if s.len() > 120 => println!("{k}: {:?}...", &s[..120]),
            other => println!("{k}: {other:?}"),
        }
    }
    let mut kinds = std::collections::BTreeMap::new();
    for t in &g.tensors {
        *kinds.entry(format!("{:?}", t.kind)).or_insert(0) += 1;
    }
    for t in g.tensors.iter().take(14) {
        println!("{} {:?} {:?}", t.name, t.dims, t.kind);
    }
    println!("types: {kinds:?}");
    Ok(())
}
