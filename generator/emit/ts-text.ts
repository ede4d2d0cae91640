/**
 * Helpers that turn manifest text into TypeScript text that can never break out of its slot: string
 * literals go through JSON.stringify, comments through `docComment`.
 */

/**
 * A JSDoc block from free text. `*\/` would end the comment and let the rest run as code, so the
 * slash is escaped; every line gets its own ` * ` prefix, so newlines cannot escape either.
 */
export function docComment(text: string | undefined, indent = ""): string {
  if (text === undefined || text.trim() === "") return "";
  const lines = text
    .replace(/\r\n?|[\u2028\u2029]/g, "\n")
    .replace(/\*\//g, "*\\/")
    .split("\n")
    .map((line) => line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").trimEnd());
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l === "" ? "" : ` ${l}`}`).join("\n")}\n${indent} */\n`;
}

/** A string literal; JSON's escaping is valid TypeScript and covers quotes, backslashes and newlines. */
export function stringLiteral(value: string): string {
  return JSON.stringify(value);
}

/** A property key: bare when it is a plain identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : stringLiteral(name);
}
