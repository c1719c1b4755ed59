/**
 * The string filter expression (spec: String filter expression):
 *
 *   filter    := clause ("and" clause)* | ε
 *   clause    := predicate | "(" predicate ("or" predicate)* ")"
 *   predicate := field operator [value | "(" value ("," value)* ")"]
 *
 * `or` only inside parentheses, `and` only outside, groups do not nest; keywords are
 * case-insensitive. Every error names the 0-based position and what was expected.
 */
import { LIMITS, type Clause, type Filter, type Op, type Predicate, type Resource } from './ast.js';
import { checkPredicate, filterError, type Part } from './check.js';
import { at, tokenize, type Token } from './lexer.js';

const SYMBOLS: Record<string, Op> = {
  '=': 'equals',
  '!=': 'notEquals',
  '>': 'gt',
  '>=': 'gte',
  '<': 'lt',
  '<=': 'lte',
};

const OPERATOR_LIST =
  '=, !=, >, >=, <, <=, contains, not contains, starts with, ends with, in, not in, exists, does not exist';

/**
 * Parses and checks a string expression for `resource`. An empty or blank expression is the empty
 * filter. Throws `ApiError('invalid_filter')`.
 */
export function parseFilter(text: string, resource: Resource): Filter {
  return new Parser(tokenize(text), resource).filter();
}

class Parser {
  private i = 0;
  private predicates = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly resource: Resource,
  ) {}

  filter(): Filter {
    if (this.peek().kind === 'eof') return [];
    const clauses: Clause[] = [this.clause()];
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') return clauses;
      if (keyword(t, 'and')) clauses.push(this.clause());
      else if (keyword(t, 'or')) filterError(at(t.pos), '"or" is only allowed inside parentheses; write (a or b)');
      else this.expected('"and" or the end of the filter', t);
    }
  }

  private clause(): Clause {
    if (this.peek().kind !== '(') return this.predicate();
    this.next();
    const members = [this.predicate()];
    for (;;) {
      const t = this.next();
      if (t.kind === ')') return { or: members };
      if (keyword(t, 'or')) members.push(this.predicate());
      else if (keyword(t, 'and'))
        filterError(at(t.pos), '"and" is not allowed inside parentheses; a group joins its predicates with "or"');
      else this.expected('"or" or ")"', t);
    }
  }

  private predicate(): Predicate {
    const field = this.next();
    if (field.kind === '(') filterError(at(field.pos), 'groups do not nest: a group holds predicates joined by "or"');
    if (field.kind !== 'word' || keyword(field, 'and') || keyword(field, 'or')) this.expected('a field name', field);
    if (++this.predicates > LIMITS.max_predicates) {
      filterError(
        at(field.pos),
        `too many predicates: at most ${LIMITS.max_predicates} are allowed, counting those inside parentheses`,
      );
    }
    const [op, opPos] = this.operator();
    const values: Token[] = [];
    if (op === 'in' || op === 'notIn') {
      this.expect('(', `"(" to open the list of ${op === 'in' ? 'in' : 'not in'}`);
      do values.push(this.value());
      while (this.accept(','));
      this.expect(')', '"," or ")"');
    } else if (op !== 'exists' && op !== 'doesNotExist') {
      values.push(this.value());
    }
    const positions: Record<Part, (item?: number) => number> = {
      field: () => field.pos,
      op: () => opPos,
      value: (item) => (values[item ?? 0] as Token).pos,
    };
    const texts = values.map((v) => v.text);
    return checkPredicate(
      {
        field: field.text,
        op,
        ...(values.length === 0 ? {} : { value: op === 'in' || op === 'notIn' ? texts : texts[0] }),
      },
      { resource: this.resource, dialect: 'string', locate: (part, item) => at(positions[part](item)) },
    );
  }

  private operator(): [Op, number] {
    const t = this.next();
    const symbol = t.kind === 'symbol' ? SYMBOLS[t.text] : undefined;
    if (symbol) return [symbol, t.pos];
    const word = t.kind === 'word' ? t.text.toLowerCase() : '';
    switch (word) {
      case 'contains':
      case 'in':
      case 'exists':
        return [word as Op, t.pos];
      case 'not': {
        const u = this.next();
        if (keyword(u, 'contains')) return ['notContains', t.pos];
        if (keyword(u, 'in')) return ['notIn', t.pos];
        return this.expected('"contains" or "in"', u);
      }
      case 'starts':
        this.expectWord('with');
        return ['startsWith', t.pos];
      case 'ends':
        this.expectWord('with');
        return ['endsWith', t.pos];
      case 'does': {
        this.expectWord('not');
        const u = this.next();
        if (keyword(u, 'exist') || keyword(u, 'exists')) return ['doesNotExist', t.pos];
        return this.expected('"exist"', u);
      }
      case 'between':
        return filterError(
          at(t.pos),
          '"between" exists only in the JSON filters of the search endpoints; use >= and <=',
        );
      default:
        return this.expected('an operator', t, `operators are ${OPERATOR_LIST}`);
    }
  }

  private value(): Token {
    const t = this.next();
    if (t.kind !== 'word' && t.kind !== 'string') this.expected('a value', t);
    return t;
  }

  private expectWord(word: string): void {
    const t = this.next();
    if (!keyword(t, word)) this.expected(`"${word}"`, t);
  }

  private expect(kind: Token['kind'], what: string): void {
    const t = this.next();
    if (t.kind !== kind) this.expected(what, t);
  }

  private accept(kind: Token['kind']): boolean {
    if (this.peek().kind !== kind) return false;
    this.i++;
    return true;
  }

  private expected(what: string, t: Token, hint?: string): never {
    const prev = this.tokens[this.tokens.indexOf(t) - 1];
    const after = prev ? ` after ${JSON.stringify(prev.text)}` : '';
    const found = t.kind === 'eof' ? 'the end of the filter' : JSON.stringify(t.text);
    return filterError(at(t.pos), `expected ${what}${after}, found ${found}${hint ? `; ${hint}` : ''}`);
  }

  private peek(): Token {
    return this.tokens[this.i] as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }
}

function keyword(t: Token, word: string): boolean {
  return t.kind === 'word' && t.text.toLowerCase() === word;
}
