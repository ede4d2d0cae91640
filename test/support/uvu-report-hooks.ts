/**
 * Module hooks (registered by uvu-report.ts) that replace uvu 0.5's per-suite runner with one that
 * reports what uvu 0.5 swallows. Its runner ends in `finally { ...; return }`, so an error thrown by a
 * `before` hook (or by an `after.each` hook after a failure) is dropped: the suite prints `(0 / 5)`,
 * no reason, and even exits 0. This runner reports such an error as a failure in uvu's own format
 * (the hook's message and stack), counts the tests it kept from running as not passed, and tells the
 * test runner which test is running (for a suite killed for hanging).
 *
 * The rest of uvu is untouched. If its source no longer has the runner where this expects it, every
 * suite fails loudly rather than silently running unpatched.
 */
import type { LoadHook } from "node:module";

/** Same statements as uvu 0.5.6's `runner`, plus the reporting; it uses uvu's own `format`, `write` and marks. */
const RUNNER = `async function runner(ctx, name) {
	let { only, tests, before, after, bEach, aEach, state } = ctx;
	let hook, test, arr = only.length ? only : tests;
	let num=0, errors='', total=arr.length;
	const progress = (label) => globalThis.__manifoldUvuProgress?.(name, label);
	const fail = (label, err) => {
		if (errors.length) errors += '\\n';
		errors += format(label, err instanceof Error ? err : new Error(String(err)), name);
		write(FAIL);
	};

	try {
		if (name) write(SUITE(kleur.black(\` \${name} \`)) + ' ');
		try {
			progress('before hook');
			for (hook of before) await hook(state);
		} catch (err) {
			fail(\`before hook (so none of the \${arr.length} tests ran)\`, err);
			arr = [];
		}

		for (test of arr) {
			state.__test__ = test.name;
			progress(test.name);
			try {
				for (hook of bEach) await hook(state);
				await test.handler(state);
				for (hook of aEach) await hook(state);
				write(PASS);
				num++;
			} catch (err) {
				try {
					for (hook of aEach) await hook(state);
				} catch (hookErr) {
					fail(\`\${test.name} (its after.each hook)\`, hookErr);
				}
				fail(test.name, err);
			}
		}
	} finally {
		state.__test__ = '';
		try {
			progress('after hook');
			for (hook of after) await hook(state);
		} catch (err) {
			fail('after hook', err);
		}
		progress(undefined);
		let msg = \`  (\${num} / \${total})\\n\`;
		let skipped = (only.length ? tests.length : 0) + ctx.skips;
		write(errors.length ? kleur.red(msg) : kleur.green(msg));
		return [errors || true, num, skipped, total];
	}
}

`;

const START = "async function runner(ctx, name) {";
const END = "let timer;";

/** uvu's module source with its runner replaced; throws when the source is not the shape this knows. */
export function patchUvu(source: string, url: string): string {
  const from = source.indexOf(START);
  const to = source.indexOf(END, from);
  if (from < 0 || to < 0 || !source.includes("function format(name, err, suite")) {
    throw new Error(`test/support/uvu-report-hooks.ts: ${url} is not the uvu 0.5 this patches; update the patch for the installed uvu`);
  }
  return source.slice(0, from) + RUNNER + source.slice(to);
}

export const load: LoadHook = async (url, context, nextLoad) => {
  const loaded = await nextLoad(url, context);
  if (!/\/node_modules\/uvu\/dist\/index\.m?js$/.test(url) || loaded.source === undefined || loaded.source === null) return loaded;
  const text = typeof loaded.source === "string" ? loaded.source : Buffer.from(loaded.source as Uint8Array).toString("utf8");
  return { ...loaded, source: patchUvu(text, url) };
};
