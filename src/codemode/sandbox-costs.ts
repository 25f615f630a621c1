// The sandbox's costs.js (JavaScript source): what memory.js charges for work whose cost is not the size of one input.
// Kept apart from memory.js, which imports it, so that each module stays one concern:
//   - a sort's comparisons, which run natively (and scan whole strings) unless a program function makes them;
//   - an argument list applied, which costs what its spread costs.
export const COSTS_MODULE = 'costs.js';

export const COSTS_SOURCE = String.raw`
const { apply } = Reflect;
const mathCeil = Math.ceil;
const mathLog2 = Math.log2;
const fnToString = Function.prototype.toString;
// A function the program did not write (Intl.Collator's compare, a bound built-in): no guard runs inside it. Program
// functions print their source, which can never end like this.
const isNative = (fn) => typeof fn === 'function' && / \{ \[native code\] \}$/.test(apply(fnToString, fn, []));
// Steps a sort costs up front: comparisons run natively unless a program function makes them (its guards count those,
// so it pays an eighth). A native comparator is one native call for the whole sort: Intl.Collator's compare over
// 1 M strings held the runtime for 4.5 s.
// Comparing strings natively costs their length, not one step: 4,000 references to two equal 16 M-character strings
// sorted for 12 s without a comparator, 73 s with Intl.Collator's. Each element takes part in about log₂n
// comparisons of at most its own length, so the characters of string elements times 2·log₂n bound what the native
// comparisons scan, at a step per 1,024 characters.
export const sortSteps = (a, n, cmp, strings) => {
  const native = cmp === undefined || isNative(cmp);
  const log = n > 1 ? mathLog2(n) : 1;
  return mathCeil((n * log) / (native ? 4 : 32)) + (native && strings ? mathCeil((stringChars(a, n) * 2 * log) / 1024) : 0);
};
// The characters of a's string elements, walked at most once and stopped past what any step budget allows.
const stringChars = (a, n) => {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const e = a[i];
    if (typeof e === 'string') total += e.length;
    if (total > 1e12) break;
  }
  return total;
};

// Installs the charge on applied argument lists; the helpers are memory.js's.
export function meterApplied({ charge, checkElements, len, define, wrap }) {
  // An argument list applied (\`f.apply(t, list)\`, \`Reflect.apply\`, \`Reflect.construct\`) costs what the spread
  // \`f(...list)\` costs: a slot per argument. What the callee makes from its arguments (String.fromCharCode's
  // string, Array.of's array, splice's insertions) is then paid for: 3,000 calls of
  // \`String.fromCharCode.apply(null, sixtyThousandCodes)\` made 360 MB nothing had charged and crashed the runtime.
  const listCost = (list) => (list !== null && typeof list === 'object' ? checkElements(len(list)) * 8 : 0);
  const fnApply = Function.prototype.apply;
  define(Function.prototype, 'apply', function (thisArg, list) {
    charge(listCost(list));
    return apply(fnApply, this, [thisArg, list]);
  });
  wrap(Reflect, 'apply', { cost: (_, args) => listCost(args[2]) });
  wrap(Reflect, 'construct', { cost: (_, args) => listCost(args[1]) });
}
`;
