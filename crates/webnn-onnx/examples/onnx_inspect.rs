fn main() {
    if std::env::var("DUMP").is_ok() { return dump(&std::env::args().nth(1).unwrap()); }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = webnn_onnx::import::ImportOptions::default().with_dims(args.get(1).map(String::as_str).unwrap_or("")).unwrap();
    let bytes = std::fs::read(&args[0]).unwrap();
    let mut o = opts.clone();
    o.dir = std::path::Path::new(&args[0]).parent().map(|p| p.to_path_buf());
    print!("{}", webnn_onnx::import::inspect(&bytes, &o).unwrap());
}

#[allow(dead_code)]
fn dump(path: &str) {
    let m = webnn_onnx::import::decode_model(&std::fs::read(path).unwrap()).unwrap();
    for n in &m.graph.unwrap().node {
        println!("{} {:?} {:?} -> {:?} {:?}", n.op_type(), n.name(), n.input, n.output, n.attribute.iter().map(|a| (a.name(), a.i, &a.ints)).collect::<Vec<_>>());
    }
}
