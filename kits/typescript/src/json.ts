// JSON as the contract needs it: integers exactly (bigint, up to any size) and told apart from
// numbers with a fraction or exponent (JsonFloat: `1.0` is not the integer 1), which JSON.parse
// cannot do. write() gives compact JSON with the keys in insertion order.

export class JsonFloat {
  constructor(readonly text: string) {}
}
export type Json = null | boolean | bigint | JsonFloat | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class JsonSyntaxError extends Error {}

export function parse(text: string): Json {
  let i = 0;
  const fail = (what: string): never => { throw new JsonSyntaxError(`${what} at character ${i}`); };
  const space = () => { while (i < text.length && " \t\n\r".includes(text[i])) i++; };
  const value = (depth: number): Json => {
    if (depth > 512) fail("nested too deeply");
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj: JsonObject = Object.create(null);
      space();
      if (text[i] === "}") { i++; return obj; }
      for (;;) {
        space();
        if (text[i] !== '"') fail("expected a key");
        const key = string();
        space();
        if (text[i++] !== ":") fail("expected ':'");
        obj[key] = value(depth + 1);
        space();
        if (text[i] === ",") { i++; continue; }
        if (text[i++] === "}") return obj;
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: Json[] = [];
      space();
      if (text[i] === "]") { i++; return arr; }
      for (;;) {
        arr.push(value(depth + 1));
        space();
        if (text[i] === ",") { i++; continue; }
        if (text[i++] === "]") return arr;
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    const m = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    m.lastIndex = i;
    const found = m.exec(text);
    if (!found) return fail("unexpected character");
    i += found[0].length;
    return found[2] === undefined && found[3] === undefined ? BigInt(found[0]) : new JsonFloat(found[0]);
  };
  const string = (): string => {
    const m = /"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"/y;
    m.lastIndex = i;
    const found = m.exec(text);
    if (!found) return fail("bad string");
    i += found[0].length;
    return found[1].includes("\\") ? JSON.parse(found[0]) : found[1];
  };
  const result = value(0);
  space();
  if (i !== text.length) fail("trailing characters");
  return result;
}

export function write(v: Json): string {
  if (v === null || typeof v === "boolean") return String(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof JsonFloat) return v.text;
  if (Array.isArray(v)) return "[" + v.map(write).join(",") + "]";
  return "{" + Object.keys(v).map((k) => JSON.stringify(k) + ":" + write(v[k])).join(",") + "}";
}

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat);
}
