// Claims over time, on the Distribution page: the claims paid per day (UTC) over the last 7, 30 or 90 days, one
// stacked bar a day with a colour per rule (getDistributionClaimSeries). The busiest rules are drawn on their own and
// the rest summed as "Other rules", so the legend stays readable for an app with many rules.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { SegmentedControl } from '@mantine/core';
import { BarChart } from '@mantine/charts';
import { getDistributionClaimSeriesOptions } from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { GetDistributionClaimSeriesResponse } from '../../../generated/dashboard/types.gen';
import { ChartCard } from '../components/ChartCard';
import { EmptyMessage } from '../components/EmptyMessage';
import { QueryState } from '../components/QueryState';
import { useFiltersInAddress } from '../monitor/useFiltersInAddress';

type Series = GetDistributionClaimSeriesResponse['content'];

const PERIODS = ['7', '30', '90'] as const;
type Period = (typeof PERIODS)[number];
const DEFAULT_PERIOD: Period = '30';
const isPeriod = (value: string | null): value is Period => PERIODS.some((p) => p === value);

/** Rules drawn on their own; any more are summed as "Other rules". */
const MAX_RULES_DRAWN = 6;
const COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.7', 'pink.6'];
const OTHER_COLOR = 'gray.6';

// The series' days are UTC days: labelled in UTC so a day is not shown as the day before west of Greenwich.
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const count = new Intl.NumberFormat();
const labelOf = (date: string) => dayLabel.format(new Date(`${date}T00:00:00Z`));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

interface Drawn {
  /** A key of the chart's rows (rule names may hold dots, which the chart would read as a path). */
  key: string;
  label: string;
  color: string;
  claims: number[];
  total: number;
}

/** The rules to draw, busiest first, the rest summed into one. */
function drawnRules(series: Series): Drawn[] {
  const rules = series.rules
    .map((rule) => ({ label: rule.name, claims: rule.claims, total: sum(rule.claims) }))
    .filter((rule) => rule.total > 0)
    .sort((a, b) => b.total - a.total);
  const own = rules.length > MAX_RULES_DRAWN ? rules.slice(0, MAX_RULES_DRAWN - 1) : rules;
  // Keys in drawing order: the legend sorts by key.
  const drawn: Drawn[] = own.map((rule, i) => ({ ...rule, key: `s${i}`, color: COLORS[i % COLORS.length]! }));
  const rest = rules.slice(own.length);
  if (rest.length > 0) {
    drawn.push({
      key: `s${own.length}`,
      label: `Other rules (${rest.length})`,
      color: OTHER_COLOR,
      claims: series.dates.map((_, day) => sum(rest.map((rule) => rule.claims[day] ?? 0))),
      total: sum(rest.map((rule) => rule.total)),
    });
  }
  return drawn;
}

/** The chart in words: the total, each rule drawn, and the busiest day. */
function summaryOf(series: Series, drawn: Drawn[], days: Period): string {
  const total = sum(drawn.map((rule) => rule.total));
  const perDay = series.dates.map((_, day) => sum(drawn.map((rule) => rule.claims[day] ?? 0)));
  const busiest = perDay.indexOf(Math.max(...perDay));
  const byRule = drawn.map((rule) => `${rule.label} ${count.format(rule.total)}`).join(', ');
  return (
    `${count.format(total)} ${total === 1 ? 'claim' : 'claims'} paid in the last ${days} days (days in UTC, today ` +
    `included): ${byRule}. Busiest day: ${labelOf(series.dates[busiest] ?? '')}, with ${count.format(perDay[busiest] ?? 0)}.`
  );
}

export function ClaimsChart({ appId }: { appId: string }) {
  // Kept in the address, as the Overview's window is.
  const { searchParams, setFilter } = useFiltersInAddress(['days']);
  const requested = searchParams.get('days');
  const days: Period = isPeriod(requested) ? requested : DEFAULT_PERIOD;
  const series = useQuery({
    ...getDistributionClaimSeriesOptions({ path: { appId }, query: { days: Number(days) } }),
    // Another period keeps the last chart on screen until the new one arrives.
    placeholderData: keepPreviousData,
  });
  const drawn = series.data ? drawnRules(series.data.content) : [];

  return (
    <ChartCard
      id="claims-chart-title"
      title="Claims over time"
      testId="claims-chart"
      actions={
        <SegmentedControl
          aria-label="Claims chart period"
          size="xs"
          value={days}
          onChange={(value) => setFilter('days', value === DEFAULT_PERIOD ? null : value)}
          data={PERIODS.map((p) => ({ value: p, label: `${p} days` }))}
        />
      }
      summary={series.data && drawn.length > 0 ? summaryOf(series.data.content, drawn, days) : undefined}
      status={
        <QueryState
          query={series}
          rows={6}
          isEmpty={() => drawn.length === 0}
          empty={
            <EmptyMessage title={`No claims in the last ${days} days`}>
              Claims paid to your users show here per day, by rule, once they claim an enabled rule from your app.
            </EmptyMessage>
          }
        >
          {() => null}
        </QueryState>
      }
    >
      {series.data && drawn.length > 0 ? (
        <BarChart
          h={260}
          data={series.data.content.dates.map((date, day) => ({
            day: labelOf(date),
            ...Object.fromEntries(drawn.map((rule) => [rule.key, rule.claims[day] ?? 0])),
          }))}
          dataKey="day"
          type="stacked"
          withLegend
          legendProps={{ verticalAlign: 'bottom' }}
          series={drawn.map((rule) => ({ name: rule.key, label: rule.label, color: rule.color }))}
          yAxisProps={{ allowDecimals: false, width: 40 }}
          accessibilityLayer={false}
          style={{ opacity: series.isPlaceholderData ? 0.6 : 1 }}
        />
      ) : null}
    </ChartCard>
  );
}
