// Part of the polyfill's one scope: scripts/web/bundle.mjs concatenates the files named in
// PARTS there, in order, so each sees the names the earlier ones declare.
// MLGraphBuilder: the inputs, constants and every operation, and build().

class MLGraphBuilder {
  #inst;
  #raw;
  #context;

  constructor(context) {
    if (!new.target) throw new TypeError("Constructor MLGraphBuilder requires 'new'");
    requireArgs(arguments, 1, 'MLGraphBuilder');
    const c = contextOf(context);
    if (!c) throw new TypeError('MLGraphBuilder: the argument is not an MLContext');
    this.#inst = c.inst;
    this.#context = context;
    this.#raw = c.inst.call((mod) => new mod.WebBuilder(c.raw));
  }

  #self() {
    if (!(#raw in this)) throw new TypeError('Illegal invocation');
    return this;
  }

  #operands(infoJson) {
    return JSON.parse(infoJson).map((info) => new MLOperand(INTERNAL, this, info));
  }

  input(name, descriptor) {
    const b = this.#self();
    requireArgs(arguments, 2, 'input');
    const n = String(name);
    return b.#operands(b.#inst.call(() => b.#raw.input(n, json(descriptor))))[0];
  }

  // constant(descriptor, buffer), constant(dataType, value), constant(tensor): overloads
  // resolved as WebIDL does, by argument count and the first argument's type.
  constant(first, ...rest) {
    const args = [...arguments];
    const b = this.#self();
    requireArgs(args, 1, 'constant');
    if (args.length === 1) {
      const t = tensorOf(args[0]);
      if (!t) throw new TypeError('constant: the argument is not an MLTensor');
      if (t.inst !== b.#inst) throw new TypeError('constant: the tensor belongs to another context');
      return b.#operands(b.#inst.call(() => b.#raw.constantTensor(t.raw)))[0];
    }
    if (typeof args[0] === 'string') {
      return b.#operands(b.#inst.call(() => b.#raw.constantScalar(json(args[0]), json(args[1]))))[0];
    }
    const { bytes, view } = bufferSource(args[1], 'constant');
    return b.#operands(b.#inst.call(() => b.#raw.constant(json(args[0]), bytes, view)))[0];
  }

  async build(outputs) {
    const b = this.#self();
    requireArgs(arguments, 1, 'build');
    const named = {};
    for (const [name, o] of recordEntries(outputs, 'build: outputs')) {
      if (!operandOf(o)) throw new TypeError(`build: outputs['${name}'] is not an MLOperand`);
      named[name] = o;
    }
    const raw = await b.#inst.callAsync(() => b.#raw.build(json(named)));
    return new MLGraph(INTERNAL, b.#context, b.#inst, raw);
  }

  static {
    // Every operation of the op table, as a method of the prototype with the IDL's length.
    for (const [method, length, fewest, sequence] of OP_METHODS) {
      const fn = {
        [method](...args) {
          const b = this.#self();
          requireArgs(args, fewest, method);
          const given = [];
          args.forEach((a, i) => {
            const w = wire(a, operandPair);
            if (w !== undefined) given.push([i, w]);
          });
          const out = b.#operands(b.#inst.call(() => b.#raw.op(method, JSON.stringify(given))));
          return sequence ? out : out[0];
        },
      }[method];
      Object.defineProperty(fn, 'length', { value: length });
      Object.defineProperty(MLGraphBuilder.prototype, method, {
        value: fn,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }
}
