package query

import (
	"errors"
	"fmt"
	"time"

	"github.com/dlclark/regexp2"

	"github.com/dop251/goja"
)

// Limits on the JavaScript builtins of a Gizmo program. goja has no memory
// limit, and its builtins run to completion in Go, where neither the query
// timeout nor vm.Interrupt reaches them: one call on an array whose length
// was set to 4294967295 (a.sort(), a.fill(0)) allocates that many slots at
// once, which is fatal, and "x".repeat(n) or JSON.stringify of a deep value
// likewise. The sandbox replaces the builtins that allocate or loop in
// proportion to a length by wrappers that refuse, with a RangeError, a
// length or a result over these limits before calling the original.
const (
	// maxArrayLength bounds the length of an array (or array-like) an
	// Array method, Array.from or Function.prototype.apply works on, and
	// the length of the array it makes.
	maxArrayLength = 10_000_000
	// maxStringLength bounds, in UTF-16 code units, a string made by
	// String.prototype.repeat, padStart, padEnd, concat,
	// Array.prototype.join and JSON.stringify.
	maxStringLength = 64 << 20
	// maxBufferBytes bounds an ArrayBuffer or typed array made by a
	// program.
	maxBufferBytes = 64 << 20
	// maxRegexpMatch bounds one match of a regular expression run by
	// regexp2, goja's backtracking engine (see limitRegexps).
	maxRegexpMatch = 5 * time.Second
)

// limitRegexps bounds every regexp2 match in the process by
// maxRegexpMatch. goja runs a regular expression on Go's regexp (linear
// time) when it can, and on regexp2, a backtracking engine, when the
// pattern needs it (back-references, look-around) or a match starts past
// index 0 (a global or sticky regexp's lastIndex, split): there a pattern
// like /^(a+)+\1$/ takes exponential time in the input, inside one Go call
// that neither vm.Interrupt nor the query's timeout reaches, so a query
// answered 504 would keep a core busy for hours. regexp2's only bound is
// the match timeout each pattern takes from regexp2.DefaultMatchTimeout
// when it is compiled (goja sets none), a package variable set here once,
// by registerGizmo at init, before any Gizmo session exists (regexp2 has no
// other user in Grove).
// goja reports a timed-out match as no match, so the sandbox wraps
// RegExp.prototype.exec and test (builtinLimits), through which every
// match then runs (a changed exec turns goja's fast paths for match,
// replace, search, split and matchAll into the standard ones that call
// exec), and turns a failed match that took that long into a RangeError
// rather than a wrong answer.
func limitRegexps() {
	if regexp2.DefaultMatchTimeout > maxRegexpMatch {
		regexp2.DefaultMatchTimeout = maxRegexpMatch
	}
}

// builtinLimits is the JavaScript that wraps the builtins. It runs once,
// before the program, and keeps the originals in its closure, so a program
// cannot reach them. A wrapper reads each length once and calls the
// original on what it checked where it can (a string, a copy of the
// arguments).
const builtinLimits = `(function (MAXLEN, MAXSTR, MAXBUF, MAXMATCHMS, checkValue, sourceError, jsonError) {
"use strict";
var apply = Reflect.apply, construct = Reflect.construct, defineProperty = Object.defineProperty,
	names = Object.getOwnPropertyNames, isArray = Array.isArray, spreadable = Symbol.isConcatSpreadable,
	origJoin = Array.prototype.join, origFlat = Array.prototype.flat, origMap = Array.prototype.map,
	origStringify = JSON.stringify, String_ = String, Number_ = Number, RangeError_ = RangeError;
function lengthOf(o) {
	if (o === null || o === undefined) return 0;
	var n = Number_(o.length);
	return n > 0 ? Math.floor(n) : 0;
}
function tooLong(what, n) {
	if (n > MAXLEN) throw new RangeError_(what + ": an array of " + n + " elements is over this server's limit of " + MAXLEN);
}
function tooBig(what, n) {
	if (n > MAXSTR) throw new RangeError_(what + ": a string of " + n + " characters is over this server's limit of " + MAXSTR);
}
function put(obj, name, fn) {
	defineProperty(obj, name, {value: fn, writable: true, configurable: true, enumerable: false});
}
function guard(obj, name, check) {
	var orig = obj[name];
	if (typeof orig !== "function") return;
	put(obj, name, {[name]: function () { return check(orig, this, arguments); }}[name]);
}
// replaceCtor returns a constructor standing for F: it passes its
// arguments through checkArgs and constructs F with what that returns. It
// takes F's place as its prototype's constructor and keeps F's static
// members and prototype chain; the caller puts it where F was global.
function replaceCtor(F, checkArgs) {
	var w = {[F.name]: function () { return construct(F, checkArgs(arguments), new.target || F); }}[F.name];
	w.prototype = F.prototype;
	names(F).forEach(function (k) { if (k !== "prototype" && k !== "length" && k !== "name") put(w, k, F[k]); });
	put(F.prototype, "constructor", w);
	Object.setPrototypeOf(w, Object.getPrototypeOf(F));
	return w;
}
var AP = Array.prototype;
names(AP).forEach(function (name) {
	if (name === "constructor" || typeof AP[name] !== "function") return;
	guard(AP, name, function (orig, self, args) {
		tooLong("Array.prototype." + name, lengthOf(self));
		return apply(orig, self, args);
	});
});
guard(AP, "concat", function (orig, self, args) {
	var n = lengthOf(self);
	for (var i = 0; i < args.length; i++) {
		var a = args[i];
		n += (a !== null && typeof a === "object" && (isArray(a) || a[spreadable])) ? lengthOf(a) : 1;
	}
	tooLong("Array.prototype.concat", n);
	return apply(orig, self, args);
});
guard(AP, "join", function (orig, self, args) {
	var n = lengthOf(self);
	tooLong("Array.prototype.join", n);
	var sep = args[0] === undefined ? "," : String_(args[0]), parts = [], total = 0;
	for (var i = 0; i < n; i++) {
		var e = self[i], s = (e === null || e === undefined) ? "" : String_(e);
		total += s.length + (i > 0 ? sep.length : 0);
		tooBig("Array.prototype.join", total);
		parts.push(s);
	}
	return apply(origJoin, parts, [sep]);
});
guard(AP, "flat", function (orig, self, args) {
	var depth = args[0] === undefined ? 1 : Number_(args[0]);
	var todo = [[self, depth]], total = 0;
	while (todo.length > 0) {
		var top = todo.pop(), a = top[0], n = lengthOf(a);
		tooLong("Array.prototype.flat", total + n);
		for (var i = 0; i < n; i++) {
			var e = a[i];
			if (top[1] >= 1 && isArray(e)) todo.push([e, top[1] - 1]); else total++;
		}
		tooLong("Array.prototype.flat", total);
	}
	return apply(orig, self, args);
});
guard(AP, "flatMap", function (orig, self, args) {
	tooLong("Array.prototype.flatMap", lengthOf(self));
	var mapped = apply(origMap, self, args), total = 0;
	for (var i = 0; i < mapped.length; i++) total += isArray(mapped[i]) ? lengthOf(mapped[i]) : 1;
	tooLong("Array.prototype.flatMap", total);
	return apply(origFlat, mapped, [1]);
});
guard(Array, "from", function (orig, self, args) {
	var src = args[0];
	if (src !== null && src !== undefined && typeof src !== "string") tooLong("Array.from", lengthOf(src));
	return apply(orig, self, args);
});
function applyArgs(what, list) {
	if (list !== null && list !== undefined) tooLong(what, lengthOf(list));
}
guard(Function.prototype, "apply", function (orig, self, args) {
	applyArgs("Function.prototype.apply", args[1]);
	return apply(orig, self, args);
});
guard(Reflect, "apply", function (orig, self, args) {
	applyArgs("Reflect.apply", args[2]);
	return apply(orig, self, args);
});
guard(Reflect, "construct", function (orig, self, args) {
	applyArgs("Reflect.construct", args[1]);
	return apply(orig, self, args);
});
var SP = String.prototype;
guard(SP, "repeat", function (orig, self, args) {
	var s = String_(self), n = Number_(args[0]);
	if (n > 0 && s.length > 0) tooBig("String.prototype.repeat", s.length * n);
	return apply(orig, s, [n]);
});
["padStart", "padEnd"].forEach(function (name) {
	guard(SP, name, function (orig, self, args) {
		var s = String_(self), n = Number_(args[0]);
		tooBig("String.prototype." + name, n);
		return apply(orig, s, [n, args[1]]);
	});
});
guard(SP, "concat", function (orig, self, args) {
	var parts = [String_(self)], total = parts[0].length;
	for (var i = 0; i < args.length; i++) {
		parts.push(String_(args[i]));
		total += parts[i + 1].length;
	}
	tooBig("String.prototype.concat", total);
	return apply(orig, parts[0], parts.slice(1));
});
guard(JSON, "stringify", function (orig, self, args) {
	checkValue(args[0]);
	var out = apply(orig, self, args);
	if (out !== undefined) tooBig("JSON.stringify", out.length);
	return out;
});
var now = Date.now;
["exec", "test"].forEach(function (name) {
	guard(RegExp.prototype, name, function (orig, self, args) {
		var start = now(), r = apply(orig, self, args);
		if ((r === null || r === false) && now() - start >= MAXMATCHMS) throw new RangeError_("RegExp.prototype." +
			name + ": a match of " + String_(self) + " ran for over " + MAXMATCHMS / 1000 +
			" s and was stopped (catastrophic backtracking?): simplify the regular expression");
		return r;
	});
});
// A replacement string is expanded by the builtin in one Go call, up to
// the input's length times the replacement's ($& repeats each match). When
// the expansion could pass MAXSTR, the replace first runs with a function
// that measures what each match would expand to and returns "" (each call
// a point where a stopped program stops), and runs again with the string
// only if the whole stays within the limit.
function expansionSize(R, m, hasGroups) {
	// R is read as GetSubstitution reads it: $$, $&, $\u0060, $', $n, $nn, $<name>.
	var lit = 0, amp = 0, before = 0, after = 0, refs = [];
	for (var i = 0; i < R.length; i++) {
		var d = R[i + 1];
		if (R[i] !== "$" || d === undefined) { lit++; continue; }
		if (d === "$") { lit++; i++; }
		else if (d === "&") { amp++; i++; }
		else if (d === "\u0060") { before++; i++; }
		else if (d === "'") { after++; i++; }
		else if (d >= "0" && d <= "9" && R[i + 2] >= "0" && R[i + 2] <= "9" &&
			Number_(R.slice(i + 1, i + 3)) >= 1 && Number_(R.slice(i + 1, i + 3)) <= m) {
			refs.push(Number_(R.slice(i + 1, i + 3)) - 1); i += 2;
		}
		else if (d >= "1" && d <= "9" && Number_(d) <= m) { refs.push(Number_(d) - 1); i++; }
		else if (d === "<" && hasGroups && R.indexOf(">", i + 2) >= 0) {
			refs.push(R.slice(i + 2, R.indexOf(">", i + 2))); i = R.indexOf(">", i + 2);
		}
		else lit++;
	}
	return function (matched, position, str, captures, groups) {
		var n = lit + amp * matched.length + before * position + after * (str.length - position - matched.length);
		for (var j = 0; j < refs.length; j++) {
			var v = typeof refs[j] === "number" ? captures[refs[j]] : groups[refs[j]];
			if (v !== undefined) n += String_(v).length;
		}
		return n;
	};
}
function checkedReplace(what, str, R, rx, run) {
	if (typeof R === "function") return run(R);
	R = String_(R);
	var dollars = R.split("$").length - 1;
	if (str.length + (str.length + 1) * (R.length + dollars * str.length) > MAXSTR) {
		var total = str.length, size = null, lastIndex = rx !== null ? rx.lastIndex : undefined;
		run(function (matched) {
			var n = arguments.length, groups = typeof arguments[n - 1] === "string" ? undefined : arguments[n - 1],
				last = groups === undefined ? n - 1 : n - 2, captures = [];
			for (var i = 1; i < last - 1; i++) captures.push(arguments[i]);
			if (size === null) size = expansionSize(R, captures.length, groups !== undefined);
			total += size(matched, arguments[last - 1], str, captures, groups) - matched.length;
			tooBig(what, total);
			return "";
		});
		if (rx !== null) rx.lastIndex = lastIndex;
	}
	return run(R);
}
function regexpOf(v) { return v !== null && typeof v === "object" && "lastIndex" in v ? v : null; }
["replace", "replaceAll"].forEach(function (name) {
	guard(SP, name, function (orig, self, args) {
		var s = String_(self), search = args[0];
		// A regexp replaces through its Symbol.replace, checked below.
		if (search !== null && search !== undefined && typeof search[Symbol.replace] === "function") {
			return apply(orig, s, args);
		}
		return checkedReplace("String.prototype." + name, s, args[1], null, function (R) {
			return apply(orig, s, [args[0], R]);
		});
	});
});
guard(RegExp.prototype, Symbol.replace, function (orig, self, args) {
	var s = String_(args[0]);
	return checkedReplace("RegExp.prototype[Symbol.replace]", s, args[1], regexpOf(self), function (R) {
		return apply(orig, self, [s, R]);
	});
});
// Iterators step in JavaScript, so that a spread (f(...a), [...a], new
// Set(a)), which goja runs as one Go loop, and a spread call is quadratic
// there (3M elements: 80 s), stops when the program is stopped.
[[][Symbol.iterator](), ""[Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator]()].forEach(function (it) {
	var proto = Object.getPrototypeOf(it), next = proto.next;
	put(proto, "next", {next: function () { return apply(next, this, []); }}.next);
});
// Source parsed at run time goes through the same checks as the program
// (source.go): goja's parsers recurse on nesting, and eval, the Function
// constructors and JSON.parse of a deep string overflowed the stack. Each
// checks the string it was given and passes that same string on (a value's
// toString could answer differently a second time). eval becomes an
// indirect eval: it runs in the global scope.
function checked(what, s, errorOf) {
	var e = errorOf(s);
	if (e !== "") throw new RangeError_(what + ": " + e);
	return s;
}
(function () {
	var origEval = globalThis.eval;
	put(globalThis, "eval", {eval: function (x) {
		return origEval(typeof x === "string" ? checked("eval", x, sourceError) : x);
	}}.eval);
	function sourceCheckedCtor(F) {
		return replaceCtor(F, function (args) {
			var parts = [];
			for (var i = 0; i < args.length; i++) parts.push(String_(args[i]));
			checked(F.name, apply(origJoin, parts, [","]), sourceError);
			return parts;
		});
	}
	put(globalThis, "Function", sourceCheckedCtor(Function));
	[function* () {}, async function () {}].forEach(function (f) {
		sourceCheckedCtor(Object.getPrototypeOf(f).constructor);
	});
})();
guard(JSON, "parse", function (orig, self, args) {
	return apply(orig, self, [checked("JSON.parse", String_(args[0]), jsonError), args[1]]);
});
function checkBuffer(what, n) {
	if (Number_(n) > MAXBUF) throw new RangeError_(what + ": " + n + " bytes is over this server's limit of " + MAXBUF);
}
["ArrayBuffer", "SharedArrayBuffer", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
 "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"].forEach(function (name) {
	var orig = globalThis[name];
	if (typeof orig !== "function") return;
	var size = orig.BYTES_PER_ELEMENT || 1;
	put(globalThis, name, replaceCtor(orig, function (args) {
		var a = args[0];
		if (typeof a === "number") checkBuffer(name, a * size);
		else if (a !== null && typeof a === "object" && !(a instanceof ArrayBuffer)) checkBuffer(name, lengthOf(a) * size);
		return args;
	}));
});
})`

// limitsProgram is builtinLimits compiled once (a goja.Program is
// immutable and runs in any runtime): compiling it for every query took
// about a millisecond.
var limitsProgram = goja.MustCompile("grove-limits.js", builtinLimits, true)

// limitBuiltins runs builtinLimits in vm.
func (sb *sandboxVM) limitBuiltins() error {
	check := func(call goja.FunctionCall) goja.Value {
		if _, err := sb.sanitize(call.Argument(0), "JSON.stringify", "argument 1"); err != nil {
			panic(sb.vm.NewTypeError("%v", err))
		}
		return goja.Undefined()
	}
	fn, err := sb.vm.RunProgram(limitsProgram)
	if err != nil {
		return fmt.Errorf("gizmo sandbox: limiting builtins: %w", err)
	}
	wrapBuiltins, ok := goja.AssertFunction(fn)
	if !ok {
		return errors.New("gizmo sandbox: limiting builtins: not a function")
	}
	// sourceError and jsonError answer "" or why a string may not be parsed.
	errText := func(check func(string) error) func(string) string {
		return func(s string) string {
			if err := check(s); err != nil {
				return err.Error()
			}
			return ""
		}
	}
	_, err = wrapBuiltins(goja.Undefined(), sb.vm.ToValue(maxArrayLength), sb.vm.ToValue(maxStringLength),
		sb.vm.ToValue(maxBufferBytes), sb.vm.ToValue(maxRegexpMatch.Milliseconds()), sb.vm.ToValue(check),
		sb.vm.ToValue(errText(checkSource)), sb.vm.ToValue(errText(checkJSONDepth)))
	if err != nil {
		return fmt.Errorf("gizmo sandbox: limiting builtins: %w", err)
	}
	return nil
}
