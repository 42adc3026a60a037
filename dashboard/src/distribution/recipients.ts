// A push's recipients as an operator brings them: a CSV file or pasted lines, read here before anything is sent so the
// form can say what was understood and which lines were refused. One recipient a line. A header line may name the
// column (userId, externalId or walletAddress; other columns are left alone); without one, a single column is
// classified value by value: `usr_...` is a user id, a 56-character `G...` a wallet address, any other value of the
// external-id form an external id. The contract's patterns (DistributionPushInput.yaml) are checked, so what is read
// is what the service accepts.

export type RecipientKind = 'userId' | 'externalId' | 'walletAddress';

export const MAX_RECIPIENTS = 10_000;

const PATTERNS: Record<RecipientKind, RegExp> = {
  userId: /^usr_[0-9A-Za-z]+$/,
  externalId: /^[A-Za-z0-9._:@-]{1,128}$/,
  walletAddress: /^G[A-Z2-7]{55}$/,
};
const MAX_LENGTH: Record<RecipientKind, number> = { userId: 64, externalId: 128, walletAddress: 56 };

const KIND_WORDS: Record<RecipientKind, string> = {
  userId: 'a user id (usr_…)',
  externalId: 'an external id (letters, digits and . _ : @ -, up to 128 characters)',
  walletAddress: 'a wallet address (G…, 56 characters)',
};

/** The column names a header line may use, compared without case, spaces, `_` or `-`. */
const HEADER_NAMES: Record<string, RecipientKind> = {
  userid: 'userId',
  externalid: 'externalId',
  walletaddress: 'walletAddress',
};

export interface RefusedLine {
  /** 1-based, as an editor numbers the lines. */
  line: number;
  text: string;
  /** Lower case, no full stop: "not a user id (usr_…)". */
  reason: string;
}

export interface ReadRecipients {
  recipients: Record<'userIds' | 'externalIds' | 'walletAddresses', string[]>;
  /** Recipients read, across the three lists. */
  total: number;
  refused: RefusedLine[];
  /** Lines that named a recipient already read (left out: the push would skip them). */
  repeated: number;
  /** The header line's named columns, when there was one. */
  columns?: RecipientKind[];
  /** What makes the whole input unusable (no column to read, too many recipients); undefined when usable. */
  problem?: string;
}

const LIST_OF: Record<RecipientKind, keyof ReadRecipients['recipients']> = {
  userId: 'userIds',
  externalId: 'externalIds',
  walletAddress: 'walletAddresses',
};

const headerKind = (cell: string): RecipientKind | undefined => HEADER_NAMES[cell.toLowerCase().replace(/[\s_-]/g, '')];

/** A single value's kind when no header names it; undefined when it is none of the three. */
export function classify(value: string): RecipientKind | undefined {
  if (value.startsWith('usr_') && fits('userId', value)) return 'userId';
  if (value.length === 56 && fits('walletAddress', value)) return 'walletAddress';
  return fits('externalId', value) ? 'externalId' : undefined;
}

const fits = (kind: RecipientKind, value: string) => value.length <= MAX_LENGTH[kind] && PATTERNS[kind].test(value);

/** The cells of one CSV line: `delimiter`-separated, double quotes around a cell and "" inside it understood. */
function cellsOf(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (ch === delimiter) {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  // "usr_1," is one column: trailing empty cells do not count.
  while (cells.length > 1 && cells.at(-1) === '') cells.pop();
  return cells;
}

/** Comma, unless the first line is clearly separated by tabs or semicolons (spreadsheets in some languages). */
function delimiterOf(firstLine: string): string {
  if (firstLine.includes('\t')) return '\t';
  if (firstLine.includes(';') && !firstLine.includes(',')) return ';';
  return ',';
}

const shown = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** Reads the recipients out of a CSV file's text or pasted lines. */
export function readRecipients(text: string): ReadRecipients {
  const result: ReadRecipients = {
    recipients: { userIds: [], externalIds: [], walletAddresses: [] },
    total: 0,
    refused: [],
    repeated: 0,
  };
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const numbered = lines.map((raw, i) => ({ line: i + 1, raw: raw.trim() })).filter((l) => l.raw !== '');
  if (numbered.length === 0) return result;

  const delimiter = delimiterOf(numbered[0]!.raw);
  const header = cellsOf(numbered[0]!.raw, delimiter);
  // The named columns, in the order a line's recipient is looked for: user id, then external id, then wallet.
  const named = (['userId', 'externalId', 'walletAddress'] as const)
    .map((kind) => ({ kind, index: header.findIndex((cell) => headerKind(cell) === kind) }))
    .filter((c) => c.index >= 0);
  const body = named.length > 0 ? numbered.slice(1) : numbered;
  if (named.length > 0) result.columns = named.map((c) => c.kind);

  const seen = new Set<string>();
  for (const { line, raw } of body) {
    const cells = cellsOf(raw, delimiter);
    let kind: RecipientKind | undefined;
    let value: string | undefined;
    if (named.length > 0) {
      const found = named.find((c) => (cells[c.index] ?? '') !== '');
      if (!found) {
        result.refused.push({ line, text: shown(raw), reason: 'no recipient in the named columns' });
        continue;
      }
      kind = found.kind;
      value = cells[found.index]!;
      if (!fits(kind, value)) {
        result.refused.push({ line, text: shown(raw), reason: `not ${KIND_WORDS[kind]}` });
        continue;
      }
    } else {
      if (cells.length > 1) {
        result.problem =
          'Several columns and none named: add a header line naming the column userId, externalId or walletAddress.';
        return result;
      }
      value = cells[0]!;
      kind = classify(value);
      if (!kind) {
        result.refused.push({
          line,
          text: shown(raw),
          reason: 'not a user id (usr_…), a wallet address (G…, 56 characters) or an external id',
        });
        continue;
      }
    }
    const key = `${kind}:${value}`;
    if (seen.has(key)) {
      result.repeated++;
      continue;
    }
    seen.add(key);
    result.recipients[LIST_OF[kind]].push(value);
    result.total++;
  }
  if (result.total > MAX_RECIPIENTS) {
    result.problem = `${result.total.toLocaleString()} recipients: a push has at most ${MAX_RECIPIENTS.toLocaleString()}. Split them into several pushes.`;
  }
  return result;
}
