// The Distribution page's "claims over time" chart (getDistributionClaimSeries): the claims paid per UTC day over the
// last `days` days, today included, per rule of the app. Only paid claims count, on the UTC day of their claim
// (created_at): a released claim paid nothing and a reserved or submitted one is not settled yet. A deleted rule keeps
// its row, so its claims are shown under its name like any other. One range scan of the paid claims' partial index
// (migration 0027) grouped by rule and day; the grid is filled here, so days without claims count 0.
import type { Knex } from 'knex';

/** The contract's default for `days` (at most 90, which the request validator holds to). */
export const DEFAULT_SERIES_DAYS = 30;
/** The most rules the series answers (its contract's maxItems): the first created, as in the rules' list. */
export const SERIES_RULES_LIMIT = 1000;

const DAY_MS = 86_400_000;

/** One rule's line of the chart: one count per date of the series. */
export interface ClaimSeriesRule {
  ruleId: string;
  name: string;
  /** `native` or `CODE:ISSUER`. */
  asset: string;
  claims: number[];
}

export interface ClaimSeries {
  /** Every UTC day of the span, 'YYYY-MM-DD', oldest first. */
  dates: string[];
  /** Rules with paid claims in the span, in order of creation. */
  rules: ClaimSeriesRule[];
}

/** The paid claims of one rule on one UTC day, as the query groups them (rows ordered by rule creation). */
export interface RuleDayCount {
  ruleId: string;
  name: string;
  asset: string;
  /** 'YYYY-MM-DD' (UTC). */
  day: string;
  count: number;
}

/** The last `days` UTC days up to the day of `now`, oldest first, as 'YYYY-MM-DD'. `days` is 1..90 (the contract's). */
export function seriesDates(days: number, now: Date): string[] {
  const today = now.getTime() - (((now.getTime() % DAY_MS) + DAY_MS) % DAY_MS);
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * The rules' lines on the grid of `dates`: one per rule, in the order the rows first name it, with a 0 on every date
 * without a row. A row on a day outside the grid is not counted.
 */
export function fillSeries(dates: readonly string[], rows: readonly RuleDayCount[]): ClaimSeriesRule[] {
  const slot = new Map(dates.map((d, i) => [d, i]));
  const rules = new Map<string, ClaimSeriesRule>();
  for (const row of rows) {
    let rule = rules.get(row.ruleId);
    if (!rule) {
      rule = { ruleId: row.ruleId, name: row.name, asset: row.asset, claims: dates.map(() => 0) };
      rules.set(row.ruleId, rule);
    }
    const i = slot.get(row.day);
    if (i !== undefined) rule.claims[i]! += row.count;
  }
  return [...rules.values()];
}

/** The app's paid claims per rule and UTC day over the last `days` days up to `now` (today included). */
export async function claimSeries(db: Knex, input: { appId: string; days: number; now: Date }): Promise<ClaimSeries> {
  const dates = seriesDates(input.days, input.now);
  // the span's bounds: the first date's midnight to the midnight after today (a claim stamped a moment ahead of this
  // process's clock still counts today)
  const from = new Date(`${dates[0]}T00:00:00.000Z`);
  const to = new Date(Date.parse(`${dates.at(-1)}T00:00:00.000Z`) + DAY_MS);
  const { rows } = await db.raw<{
    rows: { rule_id: string; name: string; asset: string; day: string; n: number }[];
  }>(
    `with counts as (
       select rule_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as n
         from distribution_claims
        where app_id = :appId and status = 'paid' and created_at >= :from and created_at < :to
        group by 1, 2
     ), shown as (
       select id, name, asset, created_at
         from distribution_rules
        where app_id = :appId and id in (select rule_id from counts)
        order by created_at, id
        limit ${SERIES_RULES_LIMIT}
     )
     select shown.id as rule_id, shown.name, shown.asset, counts.day, counts.n
       from shown join counts on counts.rule_id = shown.id
      order by shown.created_at, shown.id, counts.day`,
    { appId: input.appId, from, to },
  );
  return {
    dates,
    rules: fillSeries(
      dates,
      rows.map((r) => ({ ruleId: r.rule_id, name: r.name, asset: r.asset, day: r.day, count: r.n })),
    ),
  };
}
