// Checks that types/webnn.d.ts (with the two files it references) declares everything in
// webidl/webnn.idl, read with webidl2 and looked up with the TypeScript compiler's type
// checker (so inherited and merged members count): every interface with its global
// interface object, attribute (readonly as declared), operation overload (arity, optional
// arguments, argument and result types), dictionary (its parent, every member, required or
// optional), enum value and typedef; and that types/index.d.ts re-exports every declared
// type. Prints `N passed, N failed`; exits 1 on a failure.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { parse } from 'webidl2';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const idlPath = path.resolve(pkg, '../webidl/webnn.idl');
const dtsPath = path.join(pkg, 'types/webnn.d.ts');
// webnn.d.ts references the other two; the three declare the API together.
const dtsParts = ['webnn.d.ts', 'webnn-limits.d.ts', 'webnn-builder.d.ts'].map((f) => path.join(pkg, 'types', f));
const indexPath = path.join(pkg, 'types/index.d.ts');

// Where the declarations differ from the IDL on purpose: an extension widens the type.
const WIDENED = {
  'MLOperandDescriptor.shape': 'readonly MLDimension[]', // flexible inputs (MLDynamicDimension entries)
};
// Shape arguments that may name dynamic dimensions (flexible inputs): `${interface}.${op}(${arg})`.
const WIDENED_ARGS = {
  'MLGraphBuilder.reshape(newShape)': 'readonly MLDimension[]',
  'MLGraphBuilder.expand(newShape)': 'readonly MLDimension[]',
  'MLGraphBuilder.slice(sizes)': 'readonly MLDimension[]',
};
// Argument types the declarations may replace with a sub-interface: constants and tensors
// take descriptors without the flexible-input extension's dynamic dimensions, which is every
// descriptor the IDL allows.
const ARGUMENT_SUBTYPES = {
  MLOperandDescriptor: 'MLStaticOperandDescriptor',
};

let passed = 0;
let failed = 0;
const notes = [];
function check(ok, what, why = '') {
  if (ok) {
    passed += 1;
  } else {
    failed += 1;
    console.log(`FAIL ${what}${why ? `: ${why}` : ''}`);
  }
}

// ---- The IDL, partials and mixins merged ----------------------------------------------------

const idl = parse(readFileSync(idlPath, 'utf8'));
const interfaces = new Map(); // name -> { members, mixin, constructors, exposed }
const dictionaries = new Map(); // name -> { parent, members }
const enums = new Map();
const typedefs = new Map();
const includes = [];
for (const d of idl) {
  switch (d.type) {
    case 'interface':
    case 'interface mixin': {
      const i = interfaces.get(d.name) ?? { members: [], mixin: d.type === 'interface mixin', exposed: false };
      i.members.push(...d.members);
      if (!d.partial) i.exposed = d.type === 'interface';
      interfaces.set(d.name, i);
      break;
    }
    case 'dictionary': {
      const x = dictionaries.get(d.name) ?? { parent: null, members: [] };
      if (!d.partial) x.parent = d.inheritance;
      x.members.push(...d.members);
      dictionaries.set(d.name, x);
      break;
    }
    case 'enum':
      enums.set(d.name, d.values.map((v) => v.value));
      break;
    case 'typedef':
      typedefs.set(d.name, d.idlType);
      break;
    case 'includes':
      includes.push(d);
      break;
    default:
      throw new Error(`unexpected IDL definition ${d.type}`);
  }
}

// Dictionaries a caller passes (reachable from operation arguments): their members must be
// optional exactly when the IDL does not require them. The others are only ever returned, with
// every member filled, so the declarations may mark those members present.
const callerDictionaries = new Set();
function markPassed(t) {
  if (typeof t.idlType !== 'string') return t.idlType.forEach(markPassed);
  const name = t.idlType;
  if (typedefs.has(name)) return markPassed(typedefs.get(name));
  if (!dictionaries.has(name) || callerDictionaries.has(name)) return;
  callerDictionaries.add(name);
  const d = dictionaries.get(name);
  if (d.parent) markPassed({ idlType: d.parent });
  for (const m of d.members) markPassed(m.idlType);
}
for (const i of interfaces.values()) {
  for (const m of i.members) if (m.arguments) m.arguments.forEach((a) => markPassed(a.idlType));
}

// The TypeScript text the declarations use for an IDL type.
const SCALARS = {
  boolean: 'boolean',
  byte: 'number',
  octet: 'number',
  short: 'number',
  'unsigned short': 'number',
  long: 'number',
  'unsigned long': 'number',
  'long long': 'number',
  'unsigned long long': 'number',
  float: 'number',
  'unrestricted float': 'number',
  double: 'number',
  'unrestricted double': 'number',
  bigint: 'bigint',
  DOMString: 'string',
  USVString: 'string',
  ByteString: 'string',
  undefined: 'void',
};
function tsText(t, returned) {
  if (t.union) return t.idlType.map((x) => tsText(x, returned)).join(' | ');
  const inner = () => tsText(t.idlType[t.idlType.length - 1], returned);
  let s;
  switch (t.generic) {
    case 'sequence':
      s = returned ? `${inner()}[]` : `readonly ${inner()}[]`;
      break;
    case 'FrozenArray':
      s = `readonly ${inner()}[]`;
      break;
    case 'Promise':
      s = `Promise<${inner()}>`;
      break;
    case 'record':
      s = `Record<string, ${inner()}>`;
      break;
    case '':
      s = SCALARS[t.idlType] ?? t.idlType;
      break;
    default:
      throw new Error(`unexpected IDL generic ${t.generic}`);
  }
  return t.nullable ? `${s} | null` : s;
}
// Compares type texts as sets of union members, whitespace aside.
function sameType(actual, expected) {
  const norm = (s) =>
    s
      .replace(/\s+/g, ' ')
      .split(' | ')
      .map((x) => x.trim())
      .sort()
      .join(' | ');
  return norm(actual) === norm(expected);
}

// ---- The declarations -----------------------------------------------------------------------

const config = ts.readConfigFile(path.join(pkg, 'tsconfig.json'), ts.sys.readFile);
const options = ts.parseJsonConfigFileContent(config.config, ts.sys, pkg).options;
const program = ts.createProgram([dtsPath, indexPath], { ...options, noEmit: true });
const checker = program.getTypeChecker();
const dts = program.getSourceFile(dtsPath);
const diagnostics = ts.getPreEmitDiagnostics(program);
check(diagnostics.length === 0, 'the declarations compile', ts.formatDiagnostics(diagnostics, ts.createCompilerHost(options)));

const globals = new Map(
  checker
    .getSymbolsInScope(dts, ts.SymbolFlags.Type | ts.SymbolFlags.Value)
    .map((s) => [s.getName(), s]),
);
const declaredType = (name) => {
  const s = globals.get(name);
  return s && s.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias) ? checker.getDeclaredTypeOfSymbol(s) : null;
};
const text = (node) => (node ? node.getText(node.getSourceFile()) : 'any');
const isOptional = (p) => Boolean(p.flags & ts.SymbolFlags.Optional);
const isReadonly = (p) =>
  (p.declarations ?? []).every((d) => ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Readonly);
const memberType = (p) => text(p.valueDeclaration?.type ?? p.declarations?.[0]?.type);

// The declared signatures of a method or constructor, as [{ params: [{optional, type}], result }].
function signatures(sigs) {
  return sigs.map((sig) => ({
    params: sig.parameters.map((p) => {
      const d = p.valueDeclaration;
      return { optional: Boolean(d.questionToken || d.initializer || d.dotDotDotToken), type: text(d.type) };
    }),
    result: text(sig.declaration?.type),
  }));
}
function describe(sig) {
  return `(${sig.params.map((p) => `${p.optional ? '?' : ''}${p.type}`).join(', ')}) => ${sig.result}`;
}
// Whether one declared signature matches an IDL operation overload.
function matches(sig, args, result, op = '') {
  if (sig.params.length !== args.length) return false;
  const argsOk = args.every((a, i) => {
    const p = sig.params[i];
    const want = WIDENED_ARGS[`${op}(${a.name})`] ?? tsText(a.idlType, false);
    const sub = ARGUMENT_SUBTYPES[want];
    return p.optional === (a.optional || a.variadic) && (sameType(p.type, want) || (sub && p.type === sub));
  });
  return argsOk && (result === null || sameType(sig.result, result));
}

for (const [base, sub] of Object.entries(ARGUMENT_SUBTYPES)) {
  const t = declaredType(sub);
  const bases = t ? checker.getBaseTypes(t).map((b) => checker.typeToString(b)) : [];
  check(bases.includes(base), `${sub} extends ${base}`);
}

// ---- Interfaces -----------------------------------------------------------------------------

for (const [name, iface] of interfaces) {
  const type = declaredType(name);
  check(type && type.isClassOrInterface(), `interface ${name}`, 'not declared');
  if (!type) continue;

  const ops = new Map();
  for (const m of iface.members) {
    if (m.type === 'attribute') {
      const p = checker.getPropertyOfType(type, m.name);
      const what = `${name}.${m.name}`;
      check(p, what, 'attribute not declared');
      if (!p) continue;
      check(!isOptional(p), `${what} is present`, 'declared optional');
      check(isReadonly(p) === m.readonly, `${what} is ${m.readonly ? 'readonly' : 'writable'}`);
      check(sameType(memberType(p), tsText(m.idlType, true)), `${what} type`, `${memberType(p)}, IDL ${tsText(m.idlType, true)}`);
    } else if (m.type === 'operation' || m.type === 'constructor') {
      const key = m.type === 'constructor' ? 'constructor' : m.name;
      ops.set(key, [...(ops.get(key) ?? []), m]);
    } else {
      throw new Error(`unexpected member ${m.type} of ${name}`);
    }
  }

  for (const [op, overloads] of ops) {
    if (op === 'constructor') continue;
    const p = checker.getPropertyOfType(type, op);
    check(p, `${name}.${op}()`, 'operation not declared');
    if (!p) continue;
    check(!(p.flags & ts.SymbolFlags.Property), `${name}.${op}() is a method`);
    const declared = signatures(checker.getSignaturesOfType(checker.getTypeOfSymbolAtLocation(p, dts), ts.SignatureKind.Call));
    for (const o of overloads) {
      const result = tsText(o.idlType, true);
      const args = o.arguments.map((a) => `${a.optional ? '?' : ''}${tsText(a.idlType, false)}`).join(', ');
      check(
        declared.some((s) => matches(s, o.arguments, result, `${name}.${op}`)),
        `${name}.${op}(${args}) => ${result}`,
        `declared ${declared.map(describe).join(' ; ')}`,
      );
    }
  }

  // The global interface object, constructible only where the IDL has a constructor.
  if (!iface.exposed) continue;
  const g = globals.get(name);
  const hasVar = g && g.flags & ts.SymbolFlags.Variable;
  check(hasVar, `global ${name}`, 'no `declare var`');
  if (!hasVar) continue;
  const ctor = checker.getTypeOfSymbolAtLocation(g, dts);
  const proto = checker.getPropertyOfType(ctor, 'prototype');
  check(
    proto && checker.typeToString(checker.getTypeOfSymbolAtLocation(proto, dts)) === name,
    `${name}.prototype`,
    'missing or not of the interface type',
  );
  const constructs = signatures(checker.getSignaturesOfType(ctor, ts.SignatureKind.Construct));
  const idlCtors = ops.get('constructor') ?? [];
  if (idlCtors.length) {
    for (const c of idlCtors) {
      check(
        constructs.some((s) => matches(s, c.arguments, name)),
        `new ${name}(${c.arguments.map((a) => tsText(a.idlType, false)).join(', ')})`,
        `declared ${constructs.map(describe).join(' ; ')}`,
      );
    }
  } else {
    // `new (illegal: never): never` keeps `instanceof` working and `new X()` a type error.
    check(
      constructs.length === 1 && constructs[0].params.length === 1 && constructs[0].params[0].type === 'never' && !constructs[0].params[0].optional,
      `new ${name}() is rejected`,
      `declared ${constructs.map(describe).join(' ; ')}`,
    );
  }
}

for (const inc of includes) {
  const target = declaredType(inc.target);
  const mixin = interfaces.get(inc.includes);
  for (const m of mixin.members) {
    const p = target && checker.getPropertyOfType(target, m.name);
    check(p && isReadonly(p) === Boolean(m.readonly), `${inc.target}.${m.name} (includes ${inc.includes})`);
  }
}

// ---- Dictionaries ---------------------------------------------------------------------------

for (const [name, dict] of dictionaries) {
  const type = declaredType(name);
  check(type && type.isClassOrInterface(), `dictionary ${name}`, 'not declared');
  if (!type) continue;
  if (dict.parent) {
    const bases = checker.getBaseTypes(type).map((b) => checker.typeToString(b));
    check(bases.includes(dict.parent), `${name} extends ${dict.parent}`, `extends ${bases.join(', ') || 'nothing'}`);
  }
  const input = callerDictionaries.has(name);
  for (const m of dict.members) {
    const what = `${name}.${m.name}`;
    const p = checker.getPropertyOfType(type, m.name);
    check(p, what, 'member not declared');
    if (!p) continue;
    if (input) {
      check(isOptional(p) === !m.required, `${what} is ${m.required ? 'required' : 'optional'}`);
    }
    const expected = WIDENED[what] ?? tsText(m.idlType, !input);
    check(sameType(memberType(p), expected), `${what} type`, `${memberType(p)}, IDL ${expected}`);
  }
}

// ---- Enums and typedefs ---------------------------------------------------------------------

for (const [name, values] of enums) {
  const type = declaredType(name);
  check(type, `enum ${name}`, 'no type alias');
  if (!type) continue;
  const literals = (type.isUnion() ? type.types : [type]).filter((t) => t.isStringLiteral()).map((t) => t.value);
  for (const v of values) check(literals.includes(v), `${name} "${v}"`, 'value missing');
  const extra = literals.filter((v) => !values.includes(v));
  if (extra.length) notes.push(`${name} also allows ${extra.map((v) => `"${v}"`).join(', ')} (extension)`);
}

for (const [name, idlType] of typedefs) {
  const s = globals.get(name);
  const decl = s?.declarations?.find((d) => ts.isTypeAliasDeclaration(d));
  check(decl, `typedef ${name}`, 'no type alias');
  if (!decl) continue;
  const actual = text(decl.type);
  check(
    sameType(actual, tsText(idlType, false)) || sameType(actual, tsText(idlType, true)),
    `typedef ${name} type`,
    `${actual}, IDL ${tsText(idlType, false)}`,
  );
}

// ---- The module re-exports every declared type ----------------------------------------------

const index = program.getSourceFile(indexPath);
const exported = new Set(checker.getExportsOfModule(checker.getSymbolAtLocation(index)).map((s) => s.getName()));
const HOST = new Set(['Navigator', 'WorkerNavigator', 'NavigatorML', 'GPUDevice', 'GPUBuffer']);
for (const file of dtsParts.map((p) => program.getSourceFile(p))) {
 for (const st of file.statements) {
  const names = ts.isVariableStatement(st) ? st.declarationList.declarations.map((d) => d.name.getText(file)) : [st.name?.getText(file)];
  for (const n of names) {
    if (n && !HOST.has(n)) check(exported.has(n), `index.d.ts exports ${n}`);
  }
 }
}
const install = [...checker.getExportsOfModule(checker.getSymbolAtLocation(index))].find((s) => s.getName() === 'install');
const installSigs = install ? signatures(checker.getSignaturesOfType(checker.getTypeOfSymbolAtLocation(install, index), ts.SignatureKind.Call)) : [];
check(
  installSigs.length === 1 && installSigs[0].params.length === 1 && installSigs[0].params[0].optional && installSigs[0].result === 'Promise<ML>',
  'install(options?) => Promise<ML>',
);

const members = (kind) => [...interfaces.values()].flatMap((i) => i.members.filter((m) => m.type === kind)).length;
console.log(
  `IDL: ${interfaces.size} interfaces, ${members('attribute')} attributes, ${members('operation')} operation overloads, ` +
    `${members('constructor')} constructor, ${dictionaries.size} dictionaries with ` +
    `${[...dictionaries.values()].reduce((n, d) => n + d.members.length, 0)} members, ` +
    `${[...enums.values()].reduce((n, v) => n + v.length, 0)} enum values in ${enums.size} enums, ${typedefs.size} typedefs`,
);
for (const n of notes) console.log(`note: ${n}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
