import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CapiGitopsError } from '../../src/core/diagnostics.js';
import type { VariableLookup, VariableValue } from '../../src/render/types.js';
import { inspectVariables, missingVariablesError, substituteVariables } from '../../src/render/variables.js';
import { CORPUS_REPOSITORY } from '../helpers/paths.js';

/** A lookup over plain values; a name absent from `vars` is unset (clusterctl MemoryReader.Get errors). */
function lookupOf(vars: Record<string, string>, origin = 'Config.variables', fromSecret = false): VariableLookup {
  return (name) => (Object.hasOwn(vars, name) ? { value: vars[name], origin, fromSecret } : undefined);
}

function substitute(text: string, vars: Record<string, string> = {}): string {
  const result = substituteVariables(text, lookupOf(vars));
  assert.deepEqual(result.missing, [], `unexpected missing variables for ${JSON.stringify(text)}`);
  return result.text;
}

/** Runs `fn`, expecting a CapiGitopsError, and returns it. */
function capiError(fn: () => unknown): CapiGitopsError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof CapiGitopsError, `expected CapiGitopsError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}

function corpusFile(label: string, version: string, file: string): string {
  return readFileSync(path.join(CORPUS_REPOSITORY, label, version, file), 'utf8');
}

const COMPONENTS_FILES: [label: string, version: string, file: string][] = [];
for (const version of ['v1.7.7', 'v1.8.0', 'v1.10.4', 'v1.12.0']) {
  COMPONENTS_FILES.push(['cluster-api', version, 'core-components.yaml']);
  COMPONENTS_FILES.push(['bootstrap-kubeadm', version, 'bootstrap-components.yaml']);
  COMPONENTS_FILES.push(['control-plane-kubeadm', version, 'control-plane-components.yaml']);
}
COMPONENTS_FILES.push(['bootstrap-rke2', 'v0.11.0', 'bootstrap-components.yaml']);
COMPONENTS_FILES.push(['control-plane-rke2', 'v0.11.0', 'control-plane-components.yaml']);
COMPONENTS_FILES.push(['cert-manager', 'v1.13.0', 'cert-manager.yaml']);

// ---- evaluation, table-driven (drone/envsubst eval.go, template.go, funcs.go) -----------------
// Every expected output below was checked against drone/envsubst 179042472c46 (the version
// cluster-api v1.12.0 pins) run through clusterctl's SimpleProcessor.Process.

const EVALUATION_CASES: [behaviour: string, text: string, vars: Record<string, string>, expected: string][] = [
  ['text without ${ is copied, bare $VAR and $(VAR) included', 'cost: $5 {x} $HOME } $(VAR) $', {}, 'cost: $5 {x} $HOME } $(VAR) $'],
  ['${V} is replaced', 'name: ${NAME}', { NAME: 'capi' }, 'name: capi'],
  ['$$ is an escaped $', 'a $$ b $$$$ c', {}, 'a $ b $$ c'],
  ['$${V} is the literal ${V}', 'x: $${NAME}', { NAME: 'capi' }, 'x: ${NAME}'],
  ['$$${V} is $ then the value', 'x: $$${NAME}', { NAME: 'capi' }, 'x: $capi'],
  ['toLen: ${#V} counts UTF-8 bytes', '${#NAME}', { NAME: 'héllo' }, '6'],
  ['toLen of an empty value', '${#NAME}', { NAME: '' }, '0'],
  ['toUpperFirst: ${V^}', '${NAME^}', { NAME: 'kubeadm' }, 'Kubeadm'],
  ['toUpper: ${V^^}', '${NAME^^}', { NAME: 'kube-adm' }, 'KUBE-ADM'],
  ['toLowerFirst: ${V,}', '${NAME,}', { NAME: 'KUBE' }, 'kUBE'],
  ['toLower: ${V,,}', '${NAME,,}', { NAME: 'KubeADM' }, 'kubeadm'],
  ['lookupFunc: mixed ${V^,} and ${V,^} leave the value alone', '${NAME^,}${NAME,^}', { NAME: 'aB' }, 'aBaB'],
  ['toUpper maps rune to rune (ß stays)', '${NAME^^}', { NAME: 'straße' }, 'STRAßE'],
  ['toLower maps rune to rune (İ becomes i)', '${NAME,,}', { NAME: 'İSTANBUL' }, 'istanbul'],
  ['toSubstr: ${V:pos}', '${V:3}', { V: 'v1.12.0' }, '12.0'],
  ['toSubstr: ${V:pos:len}', '${V:1:4}', { V: 'v1.12.0' }, '1.12'],
  ['toSubstr: a negative offset counts from the end', '${V:${OFF}:2}', { V: 'abcdef', OFF: '-3' }, 'de'],
  ['toSubstr: an offset past the end gives nothing', '${V:10}', { V: 'abc' }, ''],
  ['toSubstr: a length past the end gives the rest', '${V:1:100}', { V: 'abc' }, 'bc'],
  ['toSubstr: an offset Atoi rejects gives the value', '${V:x}|${V: 1}', { V: 'abc' }, 'abc|abc'],
  ['parseSubstrFunc: a run of colons is one separator', '${V:1::1}', { V: 'abc' }, 'b'],
  ['toSubstr counts bytes', '${V:0:2}', { V: 'éa' }, 'é'],
  ['toSubstr halves of one character joined again are valid', '${V:0:1}${V:1}', { V: 'é' }, 'é'],
  ['toDefault: ${V=d} unset', '${V=d}', {}, 'd'],
  ['toDefault: ${V:=d} unset', '${V:=d}', {}, 'd'],
  ['toDefault: ${V:-d} unset', '${V:-d}', {}, 'd'],
  ['toDefault: ${V:?d} is a default too', '${V:?d}', {}, 'd'],
  ['toDefault: ${V:+d} is a default too (not bash)', '${V:+d}', {}, 'd'],
  ['toDefault: ${V=d} with an empty value', '${V=d}', { V: '' }, 'd'],
  ['toDefault: ${V:=d} with an empty value', '${V:=d}', { V: '' }, 'd'],
  ['toDefault: ${V:-d} with an empty value', '${V:-d}', { V: '' }, 'd'],
  ['toDefault: ${V:+d} with a value gives the value', '${V:+d}', { V: 'v' }, 'v'],
  ['toDefault: ${V:=d} with a value gives the value', '${V:=d}', { V: 'v' }, 'v'],
  ['parseDefaultFunc: a default may start with a colon', '--diagnostics-address=${ADDR:=:8443}', {}, '--diagnostics-address=:8443'],
  ['parseDefaultFunc: a default may hold spaces, = and :', '${A:=x y=z:w}', {}, 'x y=z:w'],
  ['parseDefaultFunc: the first } ends the default', '${A:=a}b}', {}, 'ab}'],
  ['parseDefaultFunc: an empty default', '${A:=}|', { A: '' }, '|'],
  ['nested default, both unset', '${A:=${B:=x}}', {}, 'x'],
  ['nested default, inner set', '${A:=${B:=x}}', { B: 'b' }, 'b'],
  ['nested default, outer set', '${A:=${B:=x}}', { A: 'a' }, 'a'],
  ['nested reference between default text', '${A:=pre-${B}-post}', { B: 'mid' }, 'pre-mid-post'],
  ['$$ is not an escape inside a default', '${A:=$$}', {}, '$$'],
  ['$ before a nested ${ in a default stays', '${A:=$${B}}', { B: 'b' }, '$b'],
  ['trimShortestPrefix: ${V#glob}', '${F#*.}', { F: 'archive.tar.gz' }, 'tar.gz'],
  ['trimLongestPrefix: ${V##glob}', '${F##*.}', { F: 'archive.tar.gz' }, 'gz'],
  ['trimShortestSuffix: ${V%glob}', '${F%.*}', { F: 'archive.tar.gz' }, 'archive.tar'],
  ['trimLongestSuffix: ${V%%glob}', '${F%%.*}', { F: 'archive.tar.gz' }, 'archive'],
  ['path.Match: * also matches /', '${P##*/}', { P: '/etc/capi/config.yaml' }, 'config.yaml'],
  ['path.Match: shortest match across /', '${P#/*/}', { P: '/etc/capi/config.yaml' }, 'capi/config.yaml'],
  ['path.Match: ?', '${V#?}', { V: 'abc' }, 'bc'],
  ['path.Match: [a-c]', '${V#[a-c]}', { V: 'b1' }, '1'],
  ['path.Match: [^a-c]', '${V#[^a-c]}', { V: 'x1' }, '1'],
  ['path.Match: \\* is a literal star', '${V#\\*}', { V: '*x' }, 'x'],
  ['trimShortest: a bad pattern removes nothing', '${V#[}', { V: '[x' }, '[x'],
  ['trimShortestSuffix reverses the pattern, so [0-9] no longer matches', '${V%[0-9]}', { V: 'v1' }, 'v1'],
  ['trimShortestSuffix: a literal suffix', '${V%-rc}', { V: 'v1-rc' }, 'v1'],
  ['path.Match: ? takes a whole character', '${V##?}', { V: 'éa' }, 'a'],
  ['path.Match: a range over multi-byte characters', '${V#[é-ü]}', { V: 'ñx' }, 'x'],
  ['path.Match getEsc: [a-] is a bad pattern', '${V##[a-]}', { V: 'a-' }, 'a-'],
  ['path.Match: \\\\ is a literal backslash', '${V##*\\\\}', { V: 'a\\' }, ''],
  ['path.Match getEsc: an invalid byte in a class is a bad pattern', '${V#${W/${X:1:1}/}}', { V: '\uFFFDx', W: '[é]', X: 'é' }, '\uFFFDx'],
  ['replaceFirst: ${V/s/r}', '${V/-/_}', { V: 'a-b-c' }, 'a_b-c'],
  ['replaceAll: ${V//s/r}', '${V//-/_}', { V: 'a-b-c' }, 'a_b_c'],
  ['replacePrefix: ${V/#s/r}', '${V/#a/x}', { V: 'a-b-a' }, 'x-b-a'],
  ['replaceSuffix: ${V/%s/r}', '${V/%a/x}', { V: 'a-b-a' }, 'a-b-x'],
  ['replacePrefix: no match leaves the value', '${V/#b/x}', { V: 'a-b-a' }, 'a-b-a'],
  ['replaceFirst: no replacement deletes', '${V/-/}', { V: 'a-b-c' }, 'ab-c'],
  ['replaceAll: no replacement deletes', '${V//-/}', { V: 'a-b-c' }, 'abc'],
  ['replacePrefix needs a replacement', '${V/#a/}', { V: 'a-b-a' }, 'a-b-a'],
  ['scanner escapes: \\/ in a pattern', '${IMG/\\//-}', { IMG: 'org/img' }, 'org-img'],
  ['scanner escapes: \\\\ in a pattern', '${V//\\\\/x}', { V: 'a\\b' }, 'axb'],
  ['parseReplaceFunc: only / ends a pattern, } does not', '${V/}/x}', { V: 'a}b' }, 'axb'],
  ['parseReplaceFunc: a run of slashes is one separator', '${V/a//b}', { V: 'aa' }, 'ba'],
  ['strings.Replace: an empty pattern matches around every character', '${V//${E}/-}', { V: 'ab', E: '' }, '-a-b-'],
  ['scanner escapes: $$ in a pattern', '${V/$$/USD}', { V: '5$' }, '5USD'],
  ['replace patterns are literal, not globs', '${V/*/x}', { V: 'a*b' }, 'axb'],
  ['clusterctl convertLegacyVars: ${ V }, ${V }, ${ V} and other whitespace', '${ A }, ${A }, ${ A}, ${\tA\n}', { A: 'v' }, 'v, v, v, v'],
  ['clusterctl convertLegacyVars also rewrites after $$', '$${ A }', { A: 'v' }, '${A}'],
  ['references in YAML comments are substituted (raw text)', '# uses ${A}\nkey: v', { A: 'v' }, '# uses v\nkey: v'],
  ['an unset nested reference is empty', '${A:=<${B}>}', {}, '<>'],
  ['function arguments count as a default, so an unset ${V/a/b} is empty', '${V/a/b}|', {}, '|'],
  ['an empty value is set; an empty value with a default takes the default', '${A}|${B:=d}', { A: '', B: '' }, '|d'],
];

for (const [behaviour, text, vars, expected] of EVALUATION_CASES) {
  test(`drone/envsubst: ${behaviour} (${JSON.stringify(text)})`, () => {
    assert.equal(substitute(text, vars), expected);
  });
}

// ---- syntax errors (drone/envsubst parse/parse.go) ----------------------------------------------

const SYNTAX_ERRORS: [behaviour: string, text: string, vars: Record<string, string>, droneError: string][] = [
  ['an unterminated ${', 'a: ${A', {}, 'missing closing brace'],
  ['an empty name', '${}', {}, 'unable to parse variable name'],
  ['${V-d} is not supported', '${A-x}', {}, 'missing closing brace'],
  ['${V:} has no offset', '${A:}', { A: 'a' }, 'unable to parse substitution within function'],
  ['a multi-byte character right after : (the scanner steps back too far)', '${A:é}', { A: 'a' }, 'bad substitution'],
  ['${#} has no name', '${#}', {}, 'bad substitution'],
  ['three commas', '${A,,,}', { A: 'a' }, 'bad substitution'],
  ['${V#} has no pattern', '${A#}', { A: 'a' }, 'unable to parse substitution within function'],
  ['a replace pattern runs to the end without a /', '${A/x}\nrest', { A: 'a' }, 'bad substitution'],
  ['a dot in a name', '${A.B}', { A: 'a' }, 'missing closing brace'],
  ['two words', '${ A B }', { A: 'a' }, 'unable to parse variable name'],
  ['clusterctl legacy spacing makes ${ A$B } into ${A$B}', '${ A$B }', { A: 'a' }, 'missing closing brace'],
];

for (const [behaviour, text, vars, droneError] of SYNTAX_ERRORS) {
  test(`drone/envsubst parse.go: ${behaviour} is an error (${JSON.stringify(text)})`, () => {
    const err = capiError(() => substituteVariables(text, lookupOf(vars)));
    assert.match(err.message, new RegExp(`: ${droneError} \\(drone/envsubst parse error\\)`));
    assert.equal(err.diagnostics[0].line, 1);
    // GetVariableMap parses the same way
    assert.throws(() => inspectVariables(text), CapiGitopsError);
  });
}

test('a syntax error names its line and column, and the file when given (clusterctl Process returns the parse error)', () => {
  const text = 'a: 1\nb: ${A}\nc: x ${B:}\n';
  const err = capiError(() => substituteVariables(text, lookupOf({ A: 'a', B: 'b' })));
  assert.deepEqual([err.diagnostics[0].line, err.diagnostics[0].column], [3, 6]);
  assert.match(err.message, /"\$\{B:\}" at line 3, column 6: unable to parse substitution within function/);
  assert.ok(err.diagnostics[0].hint);

  const inFile = capiError(() => substituteVariables(text, lookupOf({}), 'core-components.yaml'));
  assert.equal(inFile.diagnostics[0].file, 'core-components.yaml');
  assert.match(inFile.message, /^core-components\.yaml:3:6: error: variable reference "\$\{B:\}": /);
});

test('a syntax error after a legacy ${ VAR } still names the original line (clusterctl convertLegacyVars)', () => {
  const err = capiError(() => inspectVariables('${\n  A\n}\nx: ${ B } ${C:}'));
  assert.deepEqual([err.diagnostics[0].line, err.diagnostics[0].column], [4, 11]);
});

test('the whole file fails on one bad reference, even after good ones (drone parses everything first)', () => {
  const err = capiError(() => substituteVariables('${A}\n${B\n', lookupOf({ A: 'a', B: 'b' })));
  assert.match(err.message, /missing closing brace/);
});

// ---- evaluation failures that clusterctl hits at run time ---------------------------------------

test('a negative ${V:pos:len} makes clusterctl panic; it is an error without the value (drone funcs.go toSubstr)', () => {
  const err = capiError(() => substituteVariables('k: ${TOKEN:1:-1}', lookupOf({ TOKEN: 's3cr3t-value' }, 'Secret capi/vars', true)));
  assert.match(err.message, /"\$\{TOKEN:1:-1\}" at line 1, column 4: .*clusterctl panics/);
  assert.doesNotMatch(err.message, /s3cr3t/);
});

test('a later panic wins over an earlier invalid byte sequence (drone evaluates everything before YAML parsing)', () => {
  const err = capiError(() => substituteVariables('${V:1} ${W:2:-5}', lookupOf({ V: 'é', W: 'abc' })));
  assert.match(err.message, /panics/);
});

test('cutting a character in two gives invalid UTF-8, an error naming the reference (drone funcs.go trimShortest works on bytes)', () => {
  // `?` first matches a lone byte of é, so the shortest prefix is half a character
  const err = capiError(() => substituteVariables('x: ${V#?}', lookupOf({ V: 'éa' }, 'Secret capi/vars', true)));
  assert.match(err.message, /"\$\{V#\?\}" at line 1, column 4: the result is not valid UTF-8/);
  assert.doesNotMatch(err.message, /éa/);
});

test('an intermediate cut character is fine when it does not reach the output (drone evaluates Go strings)', () => {
  assert.equal(substitute('${A:=${V:1}}', { A: 'a', V: 'é' }), 'a');
  assert.equal(substitute('${#V}', { V: '😀' }), '4');
});

// ---- clusterctl SimpleProcessor: missing variables, GetVariableMap ---------------------------

test('missing variables are reported sorted and unique, and nothing is substituted (clusterctl simple_processor.go Process)', () => {
  const text = 'a: ${ZED}\nb: ${ALPHA}\nc: ${ZED}\nd: ${SET}\ne: ${DEF:=x}';
  const result = substituteVariables(text, lookupOf({ SET: 'v' }));
  assert.deepEqual(result.missing, ['ALPHA', 'ZED']);
  assert.equal(result.text, text);
  assert.equal(result.used.size, 0);
});

test('a variable set to the empty string is not missing (clusterctl MemoryReader.Get finds it)', () => {
  const result = substituteVariables('${A}', lookupOf({ A: '' }));
  assert.deepEqual(result.missing, []);
  assert.equal(result.text, '');
});

test('the first top-level use decides whether a variable has a default (clusterctl simple_processor.go traverse)', () => {
  assert.deepEqual(substituteVariables('${A}${A:=x}', lookupOf({})).missing, ['A']);
  assert.equal(substitute('${A:=x}${A}'), 'x');
});

test('variables nested in defaults are neither checked nor reported (clusterctl traverse walks only the top level)', () => {
  const result = substituteVariables('${A:=${B}}', lookupOf({}));
  assert.deepEqual(result.missing, []);
  assert.equal(result.text, '');
  assert.deepEqual(inspectVariables('${A:=${B:=x}}'), [{ name: 'A', default: '${B}' }]);
});

test('inspectVariables reports defaults as clusterctl GetVariableMap (simple_processor.go traverse)', () => {
  const text = [
    '${C:=default}',
    '${B}',
    '${A=foobar}',
    '${E=""}',
    '${D:=pre-${A:=ignored}-post}',
    '${R/a/b}',
    '${S:1:2}',
    '${L,,}',
    '${N:=}',
    '${C}',
    '${ W }',
    '$${X}',
  ].join('\n');
  assert.deepEqual(inspectVariables(text), [
    { name: 'A', default: 'foobar' },
    { name: 'B' },
    { name: 'C', default: 'default' },
    { name: 'D', default: 'pre-${A}-post' },
    { name: 'E', default: '""' },
    { name: 'L' },
    { name: 'N' },
    { name: 'R', default: 'ab' },
    { name: 'S', default: '12' },
    { name: 'W' },
  ]);
});

test('inspectVariables sorts by code units, not locale (clusterctl GetVariables sort.Strings)', () => {
  assert.deepEqual(
    inspectVariables('${b} ${B} ${a_1} ${A} ${_x} ${Z9}').map((v) => v.name),
    ['A', 'B', 'Z9', '_x', 'a_1', 'b'],
  );
});

// ---- what landed in the output ------------------------------------------------------------------

test('used records the variables whose values reached the output, with their origin', () => {
  const secret: VariableValue = { value: 'tok', origin: 'Secret capi/vars', fromSecret: true };
  const plain: VariableValue = { value: 'v', origin: 'Config.variables', fromSecret: false };
  const values: Record<string, VariableValue> = { TOKEN: secret, PLAIN: plain, EMPTY: { ...plain, value: '' } };
  const result = substituteVariables(
    // TOKEN lands; PLAIN is an unused default of a set variable; EMPTY gave way to its default; UNSET has none
    'a: ${TOKEN}\nb: ${TOKEN:=${PLAIN}}\nc: ${EMPTY:=d}\nd: ${UNSET:=x}',
    (name) => values[name],
  );
  assert.equal(result.text, 'a: tok\nb: tok\nc: d\nd: x');
  assert.deepEqual([...result.used.keys()], ['TOKEN']);
  assert.equal(result.used.get('TOKEN'), secret);
});

test('a nested variable is used when the default it sits in is taken', () => {
  const result = substituteVariables('${A:=${B}} ${C/x/${D}}', lookupOf({ B: 'b', C: 'xy', D: 'd' }));
  assert.equal(result.text, 'b dy');
  assert.deepEqual([...result.used.keys()], ['B', 'C', 'D']);
});

// ---- corpus -----------------------------------------------------------------------------------

test('corpus: $$ in kubeadm v1.12.0 CRD descriptions becomes $ (drone scanner escapes)', () => {
  const raw = corpusFile('control-plane-kubeadm', 'v1.12.0', 'control-plane-components.yaml');
  assert.ok(raw.includes('Double $$ are reduced'));
  const { text } = substituteVariables(raw, lookupOf({}));
  assert.ok(text.includes('Double $ are reduced'));
  assert.ok(text.includes('"$(VAR_NAME)" will produce the string literal "$(VAR_NAME)".'));
  assert.ok(!text.includes('$$'));
});

test('corpus: core v1.12.0 defaults, including a default that starts with a colon (clusterctl SimpleProcessor)', () => {
  const raw = corpusFile('cluster-api', 'v1.12.0', 'core-components.yaml');
  const { text, used } = substituteVariables(raw, lookupOf({ EXP_MACHINE_POOL: 'false' }));
  assert.ok(text.includes('- --diagnostics-address=:8443\n'));
  assert.ok(text.includes('- --insecure-diagnostics=false\n'));
  assert.match(text, /--feature-gates=MachinePool=false,ClusterTopology=false,RuntimeSDK=false,/);
  assert.deepEqual([...used.keys()], ['EXP_MACHINE_POOL']);
});

test('corpus: inspectVariables on core-components v1.12.0 (clusterctl GetVariableMap)', () => {
  const raw = corpusFile('cluster-api', 'v1.12.0', 'core-components.yaml');
  const expected = [
    { name: 'CAPI_DIAGNOSTICS_ADDRESS', default: ':8443' },
    { name: 'CAPI_INSECURE_DIAGNOSTICS', default: 'false' },
    { name: 'CLUSTER_TOPOLOGY', default: 'false' },
    { name: 'EXP_IN_PLACE_UPDATES', default: 'false' },
    { name: 'EXP_MACHINE_POOL', default: 'true' },
    { name: 'EXP_MACHINE_SET_PREFLIGHT_CHECKS', default: 'true' },
    { name: 'EXP_MACHINE_TAINT_PROPAGATION', default: 'false' },
    { name: 'EXP_MACHINE_WAITFORVOLUMEDETACH_CONSIDER_VOLUMEATTACHMENTS', default: 'true' },
    { name: 'EXP_PRIORITY_QUEUE', default: 'false' },
    { name: 'EXP_RECONCILER_RATE_LIMITING', default: 'false' },
    { name: 'EXP_RUNTIME_SDK', default: 'false' },
  ];
  assert.deepEqual(inspectVariables(raw), expected);
  // the file only uses the plain `${NAME:=default}` form: a direct scan must agree
  const scanned = new Map<string, string>();
  for (const m of raw.matchAll(/\$\{([A-Z_]+):=([^}]*)\}/g)) if (!scanned.has(m[1])) scanned.set(m[1], m[2]);
  assert.deepEqual(
    expected,
    [...scanned].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, d]) => ({ name, default: d })),
  );
  assert.equal((raw.match(/\$\{/g) ?? []).length, 11);
});

for (const [label, version, file] of COMPONENTS_FILES) {
  test(`corpus: every \${ in ${label}/${version}/${file} resolves with no variables given (clusterctl Process)`, () => {
    const raw = corpusFile(label, version, file);
    const result = substituteVariables(raw, lookupOf({}));
    assert.deepEqual(result.missing, []);
    assert.ok(!result.text.includes('${'), 'a reference is left in the output');
    assert.equal(result.used.size, 0);
    for (const variable of inspectVariables(raw)) assert.ok(variable.default, `${variable.name} has no default`);
  });
}

test('corpus: without defaults every reference is reported missing, sorted (clusterctl errMissingVariables)', () => {
  const raw = corpusFile('bootstrap-kubeadm', 'v1.12.0', 'bootstrap-components.yaml');
  const withoutDefaults = raw.replace(/\$\{([A-Z_]+):=[^}]*\}/g, '${$1}');
  const result = substituteVariables(withoutDefaults, lookupOf({}));
  assert.deepEqual(
    result.missing,
    inspectVariables(raw).map((v) => v.name),
  );
  assert.ok(result.missing.length >= 5);
});

// ---- missingVariablesError ----------------------------------------------------------------------

test('missingVariablesError lists every missing name once, sorted, with where to set them', () => {
  const err = missingVariablesError(['ZED', 'ALPHA', 'ZED'], {
    provider: 'InfrastructureProvider/capa-system/aws',
    file: 'providers.yaml',
  });
  assert.ok(err instanceof CapiGitopsError);
  assert.equal(err.diagnostics.length, 1);
  const [d] = err.diagnostics;
  assert.match(d.message, /value for variables \[ALPHA, ZED\] is not set/);
  assert.equal(d.object, 'InfrastructureProvider/capa-system/aws');
  assert.equal(d.file, 'providers.yaml');
  assert.match(d.hint ?? '', /spec\.configSecret/);
  assert.match(d.hint ?? '', /variables/);
  assert.match(err.message, /^providers\.yaml: error: InfrastructureProvider\/capa-system\/aws: value for variables \[ALPHA, ZED\]/);
});

test('missingVariablesError with one name says variable', () => {
  const err = missingVariablesError(['AWS_B64ENCODED_CREDENTIALS'], { provider: 'InfrastructureProvider/capa-system/aws' });
  assert.match(err.message, /value for variable \[AWS_B64ENCODED_CREDENTIALS\] is not set/);
});
