import { describe, expect, it } from '@jest/globals';
import {
  addMonths,
  monthOf,
  monthOfPartition,
  monthsBetween,
  partitionClause,
  partitionName,
} from './monthly-partitions';

describe('monthly partitions', () => {
  it('names a UTC month, counts months across years and lists them both ends included', () => {
    expect(monthOf(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12');
    expect(addMonths('2026-12', 1)).toBe('2027-01');
    expect(addMonths('2026-01', -13)).toBe('2024-12');
    expect(monthsBetween('2026-11', '2027-02')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02']);
  });

  it('holds a month in a partition named after it, up to the next month’s first instant', () => {
    expect(partitionName('2026-12')).toBe('p202612');
    expect(monthOfPartition('p202612')).toBe('2026-12');
    expect(monthOfPartition('pfuture')).toBeUndefined();
    expect(partitionClause('2026-12')).toBe("PARTITION p202612 VALUES LESS THAN ('2027-01-01 00:00:00')");
  });
});
