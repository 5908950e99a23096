/**
 * The answers of the API checked against the OpenAPI document it serves: the status is one the operation
 * documents (a method the path lacks: 405 as components.responses.MethodNotAllowed), required headers are there
 * and match, and the body is what the response's content says, validated by its JSON Schema (2020-12, as
 * OpenAPI 3.1 uses it). A path the document does not have (/healthz, /openapi.json, /docs) is not checked.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export interface Answer { status: number; headers: Headers; text: string }

const DOC = 'openapi.json';

/** Compiles the document's schemas, each found by its JSON pointer segments (`components`, `schemas`, `Zone`). */
export function schemaCompiler(doc: Json): (...at: string[]) => ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  // Added whole, so that the document's own `#/components/...` references resolve. Its top-level fields are no
  // schema keywords: declared as such, strict mode still refuses any unknown keyword inside a schema.
  for (const field of Object.keys(doc)) ajv.addKeyword(field);
  ajv.addSchema(doc, DOC);
  const compiled = new Map<string, ValidateFunction>();
  return (...at) => {
    const ref = `${DOC}#/${at.map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;
    let v = compiled.get(ref);
    if (!v) compiled.set(ref, (v = ajv.compile({ $ref: ref })));
    return v;
  };
}

export const describeErrors = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');

interface Route { template: string; segments: string[]; literals: number }

export class OpenApiChecker {
  private readonly schema: (...at: string[]) => ValidateFunction;
  private readonly routes: Route[];

  constructor(private readonly doc: Json) {
    this.schema = schemaCompiler(doc);
    this.routes = Object.keys(doc.paths as Json).map((template) => {
      const segments = template.split('/');
      return { template, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
    });
  }

  /** The path template a request path falls under, the one with the most literal segments if several do. */
  private route(path: string): Route | undefined {
    const segments = path.split('?')[0]!.split('/');
    return this.routes
      .filter((r) => r.segments.length === segments.length && r.segments.every((s, i) => (s.startsWith('{') ? segments[i] !== '' : s === segments[i])))
      .sort((a, b) => b.literals - a.literals)[0];
  }

  private resolve(node: Json): Json {
    if (typeof node.$ref !== 'string') return node;
    const [kind, name] = (node.$ref as string).replace('#/components/', '').split('/') as [string, string];
    return this.resolve(this.doc.components[kind][name] as Json);
  }

  /** Every way the answer departs from the document, empty when it matches or the path is not documented. */
  problems(method: string, path: string, answer: Answer): string[] {
    const route = this.route(path);
    if (!route) return [];
    const m = method.toLowerCase();
    const operation = (this.doc.paths[route.template] as Json)[m] as Json | undefined;
    let response: Json;
    let at: string[];
    if (operation) {
      const documented = operation.responses as Json;
      if (!documented[answer.status]) {
        return [`status ${answer.status} is not documented for ${operation.operationId} (documented: ${Object.keys(documented).join(', ')})`];
      }
      response = documented[answer.status] as Json;
      at = typeof response.$ref === 'string' ? (response.$ref as string).slice(2).split('/') : ['paths', route.template, m, 'responses', String(answer.status)];
    } else {
      if (answer.status !== 405) return [`${route.template} has no ${method} operation, so its only documented answer is 405, not ${answer.status}`];
      response = this.doc.components.responses.MethodNotAllowed as Json;
      at = ['components', 'responses', 'MethodNotAllowed'];
    }
    response = this.resolve(response);
    const problems: string[] = [];
    for (const [name, h] of Object.entries((response.headers ?? {}) as Json)) {
      const header = this.resolve(h as Json);
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is required`);
        continue;
      }
      const check = this.schema(...(typeof (h as Json).$ref === 'string' ? ((h as Json).$ref as string).slice(2).split('/') : [...at, 'headers', name]), 'schema');
      if (!check((header.schema as Json).type === 'integer' && /^[0-9]+$/.test(value) ? Number(value) : value)) {
        problems.push(`header ${name}: ${JSON.stringify(value)} ${describeErrors(check.errors)}`);
      }
    }
    const text = Object.keys((response.content ?? {}) as Json).find((t) => t !== 'application/json');
    if (text) {
      const type = answer.headers.get('content-type') ?? '';
      return type.split(';')[0]!.trim() === text ? problems : [...problems, `content-type is ${JSON.stringify(type)}, not ${text}`];
    }
    const json = (response.content as Json | undefined)?.['application/json'] as Json | undefined;
    if (!json) {
      if (answer.text !== '') problems.push(`the response has no content, but the body is ${JSON.stringify(answer.text.slice(0, 200))}`);
      return problems;
    }
    const type = answer.headers.get('content-type') ?? '';
    if (!/^application\/json\b/.test(type)) return [...problems, `content-type is ${JSON.stringify(type)}, not application/json`];
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `the body is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`];
    }
    const check = this.schema(...at, 'content', 'application/json', 'schema');
    if (!check(body)) problems.push(`the body does not match the schema: ${describeErrors(check.errors)}`);
    return problems;
  }

  /** Throws, naming the request and each problem, when the answer departs from the document. */
  check(method: string, path: string, answer: Answer): void {
    const problems = this.problems(method, path, answer);
    if (problems.length > 0) {
      throw new Error(`${method} ${path} → ${answer.status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}\n  body: ${answer.text.slice(0, 500)}`);
    }
  }
}
