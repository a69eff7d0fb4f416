/** Monthly partitions (docs/API.md §21's access records): named by month, each holding the rows made in it. */

/** Months made ahead of time, so that records never pile up in the catch-all partition. */
export const MONTHS_AHEAD = 12;

/** A UTC month as `YYYY-MM`. */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

export function addMonths(month: string, count: number): string {
  const [year, index] = month.split('-').map(Number);
  const total = year * 12 + (index - 1) + count;
  return `${Math.floor(total / 12)}-${String((total % 12) + 1).padStart(2, '0')}`;
}

export const partitionName = (month: string): string => `p${month.replace('-', '')}`;

export const monthOfPartition = (name: string): string | undefined =>
  /^p(\d{4})(\d{2})$/.exec(name)?.slice(1, 3).join('-');

/** A month's partition: every record before the next month's first instant. */
export const partitionClause = (month: string): string =>
  `PARTITION ${partitionName(month)} VALUES LESS THAN ('${addMonths(month, 1)}-01 00:00:00')`;

/** The months from `first` to `last`, both included. */
export function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  for (let month = first; month <= last; month = addMonths(month, 1)) months.push(month);
  return months;
}
