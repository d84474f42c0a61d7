import { describe, expect, it } from 'vitest';
import { ipKey, ipKeyRange } from '../../grammar/index.js';

const V4_MAPPED = '00000000000000000000ffff';

describe('IP keys (grammar/match/ip.ts)', () => {
  it('maps IPv4 into ::ffff:0:0/96, as OpenSearch indexes it', () => {
    expect(ipKey('10.0.0.1')).toBe(`${V4_MAPPED}0a000001`);
    expect(ipKey('::ffff:10.0.0.1')).toBe(ipKey('10.0.0.1'));
    expect(ipKey('2001:db8::1')).toBe('20010db8000000000000000000000001');
  });

  it('reads only the forms OpenSearch reads', () => {
    for (const bad of ['10.1', '010.0.0.1', '256.0.0.1', '0x0a.0.0.1', '167772161', 'fe80::1%eth0', '1::2::3', '', 'pony']) {
      expect(ipKey(bad), bad).toBeUndefined();
    }
  });

  it('turns a CIDR block into an inclusive key range', () => {
    expect(ipKeyRange('10.0.0.0/8')).toEqual([`${V4_MAPPED}0a000000`, `${V4_MAPPED}0affffff`]);
    expect(ipKeyRange('10.1.2.3/32')).toEqual([`${V4_MAPPED}0a010203`, `${V4_MAPPED}0a010203`]);
    expect(ipKeyRange('2001:db8::/32')).toEqual(['20010db8000000000000000000000000', '20010db8ffffffffffffffffffffffff']);
    expect(ipKeyRange('0.0.0.0/0')).toEqual([`${V4_MAPPED}00000000`, `${V4_MAPPED}ffffffff`]);
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', '10.0.0.0/x', '10.1/8']) {
      expect(ipKeyRange(bad), bad).toBeUndefined();
    }
  });
});
