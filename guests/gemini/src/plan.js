// `plan-request`: a completion request as Gemini's native streaming call.
//
//   POST {base-url}/models/{model}:streamGenerateContent?alt=sse
//   x-goog-api-key: {credential}            (the host puts the key there; the adapter never sees it)
//   {"contents": [...], "systemInstruction": {"parts": [...]}, "tools": [{"functionDeclarations":
//    [...]}], "generationConfig": {"maxOutputTokens", "temperature"}}
//
// Messages:
// - system messages → `systemInstruction`, one text part each (Gemini has no system role in
//   `contents`);
// - user → `{role: "user", parts: [{text}]}`; assistant → `{role: "model", parts: [{text}?,
//   {functionCall: {name, args}}...]}`; a tool result → `{role: "user", parts: [{functionResponse:
//   {name, response}}]}`, its name looked up from the call it answers (by id);
// - consecutive contents of the same role are merged (the results of parallel calls go back in one
//   content, as Gemini expects); empty texts are dropped (Gemini refuses empty parts).
// - `args` must be a JSON object: arguments that parse to one are sent as such, empty arguments as
//   `{}`, anything else as `{"arguments": <the text>}`. A tool's `response` must be an object too: a
//   result that parses to a JSON object is sent as is, any other as `{"output": <the text>}` (the
//   key Google's documentation uses).
// - A tool result whose call is not in the conversation (dropped by compaction, say) cannot be a
//   functionResponse (Gemini needs the function's name): it goes as user text, marked as a tool
//   result, rather than failing the turn.
// - Thought signatures: Gemini 3 models refuse a replayed functionCall without its
//   `thoughtSignature`, and dsh:llm@0.1.0 has no field to keep the one Gemini sent. The adapter sends
//   Google's documented placeholder `skip_thought_signature_validator` on the first functionCall of
//   each model turn, which Gemini accepts in place of the real one.
//
// Tools: the JSON schema goes in `parameters`, which takes Google's OpenAPI subset rather than full
// JSON Schema, so the schema is narrowed to that subset (see `geminiSchema`); a tool without
// parameters is declared without `parameters` (Gemini refuses an object with no properties).

import * as codes from './codes.js';
import { toBytes } from './text.js';

export const SIGNATURE_PLACEHOLDER = 'skip_thought_signature_validator';

/** The HTTP call for `request` (jco shapes: camelCase fields, enums as strings, undefined = none). */
export function planRequest(endpoint, request) {
  const model = (request.model ?? '').trim();
  if (!model) {
    throw codes.failure(codes.INVALID_REQUEST,
      'no model given: set `model = "gemini-2.5-flash"` (for example) under [providers.NAME] or pass --model');
  }
  // `gemini-2.5-flash` → models/gemini-2.5-flash; `models/...` and `tunedModels/...` are full names.
  const resource = model.includes('/') ? model : `models/${model}`;
  const base = (endpoint.baseUrl ?? '').replace(/\/+$/, '');
  const url = `${base}/${resource.split('/').map(encodeURIComponent).join('/')}:streamGenerateContent?alt=sse`;
  const body = requestBody(request);
  return {
    method: 'POST',
    url,
    headers: [
      ['content-type', 'application/json'],
      ['accept', 'text/event-stream'],
      ['x-goog-api-key', '{credential}'],
    ],
    body: toBytes(JSON.stringify(body)),
  };
}

/** The JSON body (exported for tests). */
export function requestBody(request) {
  const messages = request.messages ?? [];
  const system = [];
  const contents = [];
  const callNames = new Map();
  const push = (role, parts) => {
    if (!parts.length) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of messages) {
    const content = m.content ?? '';
    switch (m.role) {
      case 'system':
        if (content.trim()) system.push({ text: content });
        break;
      case 'user':
        push('user', content !== '' ? [{ text: content }] : []);
        break;
      case 'assistant': {
        const parts = content !== '' ? [{ text: content }] : [];
        (m.toolCalls ?? []).forEach((call, i) => {
          callNames.set(call.id, call.name);
          const part = { functionCall: { name: call.name, args: argsObject(call.arguments) } };
          if (i === 0) part.thoughtSignature = SIGNATURE_PLACEHOLDER;
          parts.push(part);
        });
        push('model', parts);
        break;
      }
      case 'tool': {
        const name = m.toolCallId !== undefined ? callNames.get(m.toolCallId) : undefined;
        if (name === undefined) {
          push('user', [{ text: `[result of tool call ${m.toolCallId ?? '(no id)'}]\n${content}` }]);
        } else {
          push('user', [{ functionResponse: { name, response: responseObject(content) } }]);
        }
        break;
      }
      default:
        throw codes.failure(codes.INVALID_REQUEST, `unknown message role ${JSON.stringify(m.role)}`);
    }
  }
  const body = { contents };
  if (system.length) body.systemInstruction = { parts: system };
  const tools = request.tools ?? [];
  if (tools.length) {
    body.tools = [{ functionDeclarations: tools.map(declaration) }];
  }
  const config = {};
  if (request.maxTokens !== undefined && request.maxTokens !== null) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined && request.temperature !== null) {
    // An f32 crosses the boundary: 0.7 arrives as 0.699999988079071.
    config.temperature = Math.round(request.temperature * 1e6) / 1e6;
  }
  if (Object.keys(config).length) body.generationConfig = config;
  return body;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A call's argument text as the JSON object Gemini requires. */
export function argsObject(text) {
  if (text === undefined || text === null || !String(text).trim()) return {};
  try {
    const v = JSON.parse(text);
    if (isObject(v)) return v;
  } catch {
    // kept as text below
  }
  return { arguments: String(text) };
}

/** A tool result as the JSON object Gemini requires. */
export function responseObject(text) {
  try {
    const v = JSON.parse(text);
    if (isObject(v)) return v;
  } catch {
    // kept as text below
  }
  return { output: text };
}

function declaration(tool) {
  const d = { name: tool.name };
  if (tool.description) d.description = tool.description;
  let schema;
  const text = tool.parametersSchema ?? '';
  if (text.trim()) {
    try {
      schema = JSON.parse(text);
    } catch (e) {
      throw codes.failure(codes.INVALID_REQUEST,
        `the parameters schema of tool ${JSON.stringify(tool.name)} is not valid JSON (${e.message})`);
    }
  }
  const parameters = schema === undefined ? undefined : geminiSchema(schema);
  if (parameters && !(parameters.type === 'object' && !Object.keys(parameters.properties ?? {}).length)) {
    d.parameters = parameters;
  }
  return d;
}

const SCHEMA_KEYS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems',
  'properties', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern',
  'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
]);

/**
 * A JSON Schema narrowed to the OpenAPI subset Gemini's `parameters` accepts: unknown keywords
 * (`$schema`, `additionalProperties`, `$ref`, ...) are dropped, `type: ["string", "null"]` becomes
 * `type: "string", nullable: true`, `const` becomes a one-value `enum`, `oneOf` becomes `anyOf`,
 * `enum` values become strings (Gemini's enums are strings), and `required` keeps only names that
 * are among the properties.
 */
export function geminiSchema(schema) {
  if (!isObject(schema)) return schema === true ? {} : undefined;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type') {
      if (Array.isArray(v)) {
        const types = v.filter((t) => t !== 'null');
        if (types.length !== v.length) out.nullable = true;
        if (types.length === 1) out.type = types[0];
        else if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
      } else if (typeof v === 'string') {
        out.type = v;
      }
    } else if (k === 'const') {
      out.enum = [String(v)];
    } else if (k === 'oneOf' || k === 'anyOf') {
      if (Array.isArray(v)) out.anyOf = v.map(geminiSchema).filter((s) => s !== undefined);
    } else if (k === 'properties') {
      if (isObject(v)) {
        out.properties = {};
        for (const [name, sub] of Object.entries(v)) {
          const s = geminiSchema(sub);
          if (s !== undefined) out.properties[name] = s;
        }
      }
    } else if (k === 'items') {
      const s = geminiSchema(Array.isArray(v) ? v[0] : v);
      if (s !== undefined) out.items = s;
    } else if (k === 'enum') {
      if (Array.isArray(v)) out.enum = v.filter((x) => x !== null).map(String);
    } else if (SCHEMA_KEYS.has(k)) {
      out[k] = v;
    }
  }
  if (out.type === 'object' && Array.isArray(out.required)) {
    const props = out.properties ?? {};
    out.required = out.required.filter((name) => typeof name === 'string' && name in props);
    if (!out.required.length) delete out.required;
  }
  if (out.anyOf && !out.anyOf.length) delete out.anyOf;
  return out;
}
