//! What the harness needs of a WebNN implementation, so the same cases run natively on a
//! `Backend` and, in a browser, through a polyfill's JavaScript objects (`webnn-wpt-js`).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use serde_json::Value;
use webnn_core::{
    check_view_type, op_support_limits, Backend, Error, GraphBuilder, HostTensor, OpSupportLimits, Operand,
    OperandDescriptor, ViewType,
};
use webnn_idl::{call, Args, CallError};

/// The outputs of one computed graph, or the step that failed (`build`, `dispatch`...) and why.
pub type Computed = Result<Vec<(String, HostTensor)>, (String, Error)>;

/// One graph builder at a time, and a way to build, run and read the graph it made.
pub trait Session {
    type Operand: Clone;

    /// `opSupportLimits()` of the context.
    fn limits(&self) -> &OpSupportLimits;
    /// Starts a fresh builder; operands of the previous one are no longer used.
    fn new_builder(&mut self) -> Result<(), Error>;
    fn input(&mut self, name: &str, desc: &OperandDescriptor) -> Result<Self::Operand, Error>;
    /// `constant(descriptor, buffer)` with the buffer passed as a `view` typed array
    /// (`None`: the natural one for the data type).
    fn constant(&mut self, desc: &OperandDescriptor, bytes: Vec<u8>, view: Option<ViewType>)
        -> Result<Self::Operand, Error>;
    /// One builder method with its arguments by parameter name; string values that name an
    /// entry of `operands` are those operands. With `fallback`, option members may also stand
    /// among the parameters (as validation rows write them).
    fn call(
        &mut self,
        method: &str,
        params: &[(&str, &Value)],
        options: Option<&Value>,
        fallback: bool,
        operands: &HashMap<String, Self::Operand>,
    ) -> Result<Vec<Self::Operand>, CallError>;
    fn desc(&self, o: &Self::Operand) -> Result<OperandDescriptor, Error>;
    /// Builds the graph of `outputs`, runs it on `feeds` and reads every output back.
    fn compute<'a>(
        &'a mut self,
        outputs: &'a [(&'a str, Self::Operand)],
        feeds: &'a [(&'a str, HostTensor)],
    ) -> Pin<Box<dyn Future<Output = Computed> + 'a>>;
}

/// The native session: `GraphBuilder` and a `Backend`, all synchronous.
pub struct NativeSession<'b> {
    backend: &'b dyn Backend,
    limits: OpSupportLimits,
    builder: GraphBuilder,
}

impl<'b> NativeSession<'b> {
    pub fn new(backend: &'b dyn Backend) -> NativeSession<'b> {
        NativeSession { backend, limits: op_support_limits(&backend.capabilities()), builder: GraphBuilder::new() }
    }
}

impl Session for NativeSession<'_> {
    type Operand = Operand;

    fn limits(&self) -> &OpSupportLimits {
        &self.limits
    }

    fn new_builder(&mut self) -> Result<(), Error> {
        self.builder = GraphBuilder::new();
        Ok(())
    }

    fn input(&mut self, name: &str, desc: &OperandDescriptor) -> Result<Operand, Error> {
        self.builder.input(name, desc.clone())
    }

    fn constant(&mut self, desc: &OperandDescriptor, bytes: Vec<u8>, view: Option<ViewType>) -> Result<Operand, Error> {
        if let Some(view) = view {
            check_view_type(desc.data_type, view)?;
        }
        self.builder.constant(desc.clone(), bytes)
    }

    fn call(
        &mut self,
        method: &str,
        params: &[(&str, &Value)],
        options: Option<&Value>,
        fallback: bool,
        operands: &HashMap<String, Operand>,
    ) -> Result<Vec<Operand>, CallError> {
        let args = Args::new(params.to_vec(), options, operands, fallback);
        let outs = call(&mut self.builder, method, &args)?;
        let unused = args.unused();
        if !fallback && !unused.is_empty() {
            return Err(CallError::Harness(format!("{method}: arguments not understood: {}", unused.join(", "))));
        }
        Ok(outs)
    }

    fn desc(&self, o: &Operand) -> Result<OperandDescriptor, Error> {
        self.builder.desc(*o).cloned()
    }

    fn compute<'a>(
        &'a mut self,
        outputs: &'a [(&'a str, Operand)],
        feeds: &'a [(&'a str, HostTensor)],
    ) -> Pin<Box<dyn Future<Output = Computed> + 'a>> {
        let mut run = || -> Computed {
            let graph = self.builder.build(outputs).map_err(|e| ("build".to_owned(), e))?;
            let mut exe = self.backend.compile(&graph).map_err(|e| ("compile".to_owned(), e))?;
            let feeds: Vec<(&str, &HostTensor)> = feeds
                .iter()
                .filter(|(n, _)| graph.inputs.iter().any(|(g, _)| g == n))
                .map(|(n, t)| (*n, t))
                .collect();
            exe.dispatch(&feeds).map_err(|e| ("dispatch".to_owned(), e))
        };
        let result = run();
        Box::pin(std::future::ready(result))
    }
}

/// Completes a future that never waits (the native session's): a pending one is a harness bug.
pub fn ready<T>(f: impl Future<Output = T>) -> T {
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("a native session future waited"),
    }
}
