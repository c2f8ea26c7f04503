//! `webnn.llm`: what a Python program needs to run SmolLM2 through the WebNN API itself
//! (examples/generate.py): the GGUF file's tokenizer, and the decoder graph webnn-llm builds
//! from its weights, compiled for a context. The decode loop (tensors, in-place caches,
//! dispatch, reads) is the Python program's. `generate_native` runs webnn-llm's own session
//! on the same context, the reference the Python loop's tokens are checked against.

use crate::context::{MlContext, MlGraph};
use crate::errors::{to_py, type_error, Raise};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use webnn_core::Error;
use webnn_llm::gguf::Gguf;
use webnn_llm::model::{cache_type, CacheType, Config};
use webnn_llm::session::Session;

fn read(path: Option<PathBuf>) -> PyResult<Gguf> {
    let path = path.unwrap_or_else(webnn_llm::smollm2_path);
    Gguf::read(&path).map_err(|e| to_py(Error::data_error(format!("reading {}: {e}", path.display()))))
}

fn config(g: &Gguf, capacity: u32, max_seq: u32, cache: &str) -> PyResult<Config> {
    let cache = CacheType::parse(cache).ok_or_else(|| type_error(format!("cache takes 'f32' or 'f16', not '{cache}'")))?;
    let c = Config::from_gguf(g, capacity, max_seq).map_err(|e| to_py(Error::data_error(e.to_string())))?;
    Ok(Config { cache, ..c })
}

/// The default model file: `$WEBNN_SMOLLM2`, else the one `scripts/llm-setup.sh` fetches.
#[pyfunction]
fn smollm2_path() -> PathBuf {
    webnn_llm::smollm2_path()
}

/// The model's byte-level BPE tokenizer, read from its GGUF file.
#[pyclass(module = "webnn.llm", frozen)]
struct Tokenizer(webnn_llm::tokenizer::Tokenizer);

#[pymethods]
impl Tokenizer {
    #[new]
    #[pyo3(signature = (path = None))]
    fn new(path: Option<PathBuf>) -> PyResult<Self> {
        let g = read(path)?;
        Ok(Tokenizer(webnn_llm::tokenizer::Tokenizer::from_gguf(&g).map_err(|e| to_py(Error::data_error(e.to_string())))?))
    }

    /// Token ids of `text`; `parse_special` reads `<|im_start|>` and the like as their tokens.
    #[pyo3(signature = (text, parse_special = true))]
    fn encode(&self, text: &str, parse_special: bool) -> Vec<u32> {
        self.0.encode(text, parse_special)
    }

    fn decode(&self, ids: Vec<u32>) -> String {
        self.0.decode(&ids)
    }

    /// The model's chat template applied to one user message, ready for the reply.
    fn chat_prompt(&self, user: &str) -> String {
        self.0.chat_prompt(user)
    }

    #[getter]
    fn eos(&self) -> u32 {
        self.0.eos
    }

    #[getter]
    fn bos(&self) -> u32 {
        self.0.bos
    }

    #[getter]
    fn vocab_size(&self) -> usize {
        self.0.vocab_size()
    }
}

/// The decoder graph for `context` and its configuration. Inputs: `tokens` int32 [seq],
/// `positions` int32 [seq, 1], `mask` uint8 [seq, total] (1 where a token may attend),
/// `last` int32 [rows] (the rows whose logits are wanted), and per layer `k{l}`/`v{l}`
/// [capacity, kv_dim] caches, each updated in place by output `k{l}_out`/`v{l}_out`.
/// Outputs: `logits` float32 [rows, vocab] and `next` int32 [rows] (their argmax).
#[pyfunction]
#[pyo3(signature = (context, path = None, capacity = 256, max_seq = 64, cache = "f32"))]
fn build_decoder<'py>(
    py: Python<'py>,
    context: PyRef<'_, MlContext>,
    path: Option<PathBuf>,
    capacity: u32,
    max_seq: u32,
    cache: &str,
) -> PyResult<(MlGraph, Bound<'py, PyDict>)> {
    let g = read(path)?;
    let c = config(&g, capacity, max_seq, cache)?;
    let ctx = context.inner.get()?;
    let (graph, built) = crate::detached(py, move || -> webnn_core::Result<(webnn::Graph, webnn_core::Graph)> {
        let graph = webnn_llm::model::build_graph(&g, c).map_err(|e| Error::data_error(e.to_string()))?;
        Ok((pollster::block_on(ctx.compile(&graph))?, graph))
    })
    .raise()?;
    let d = PyDict::new(py);
    d.set_item("layers", c.layers)?;
    d.set_item("kv_dim", c.kv_dim())?;
    d.set_item("capacity", c.capacity)?;
    d.set_item("max_seq", c.max_seq)?;
    d.set_item("vocab", c.vocab)?;
    d.set_item("cache_data_type", cache_type(c.cache).name())?;
    Ok((MlGraph::new(graph, &built), d))
}

/// Greedy tokens from webnn-llm's own session on `context`: `prompt`, then up to `max_new`
/// tokens, stopping after `stop`.
#[pyfunction]
#[pyo3(signature = (context, prompt, max_new, stop = None, path = None, capacity = 256, cache = "f32"))]
#[allow(clippy::too_many_arguments)]
fn generate_native(
    py: Python<'_>,
    context: PyRef<'_, MlContext>,
    prompt: Vec<u32>,
    max_new: usize,
    stop: Option<u32>,
    path: Option<PathBuf>,
    capacity: u32,
    cache: &str,
) -> PyResult<Vec<u32>> {
    let g = read(path)?;
    let c = config(&g, capacity, 64, cache)?;
    let ctx = context.inner.get()?.clone();
    crate::detached(py, move || -> webnn_core::Result<Vec<u32>> {
        let mut s = pollster::block_on(Session::new(ctx, &g, c))?;
        let mut next = pollster::block_on(s.feed_greedy(&prompt))?;
        let mut out = Vec::new();
        while out.len() < max_new {
            out.push(next);
            if Some(next) == stop {
                break;
            }
            next = pollster::block_on(s.feed_greedy(&[next]))?;
        }
        Ok(out)
    })
    .raise()
}

pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "llm")?;
    m.add_class::<Tokenizer>()?;
    m.add_function(wrap_pyfunction!(smollm2_path, &m)?)?;
    m.add_function(wrap_pyfunction!(build_decoder, &m)?)?;
    m.add_function(wrap_pyfunction!(generate_native, &m)?)?;
    Ok(m)
}
