import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADDRESS_CLASSES, classifyAddress, parseIPv4, parseIPv6, sameAddress, type AddressClass } from './ip-ranges.js';

const quad = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

describe('classifyAddress: IPv4 (SPEC §6)', () => {
  it.each<[string, AddressClass]>([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['9.255.255.255', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.0', 'public'],
    ['100.100.100.200', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['172.15.255.255', 'public'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.0.0.1', 'reserved'],
    ['192.0.0.192', 'metadata'],
    ['192.0.1.1', 'public'],
    ['192.0.2.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.167.255.255', 'public'],
    ['192.168.1.1', 'private'],
    ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['223.255.255.255', 'public'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'reserved'],
  ])('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  // Spellings inet_aton would read as loopback or as another address: never guessed at.
  it.each([
    '127.1',
    '0x7f.0.0.1',
    '0x7f000001',
    '2130706433',
    '017700000001',
    '0177.0.0.1',
    '010.0.0.1',
    '127.0.0.01',
    '127.0.0.1.',
    '.127.0.0.1',
    '127.0.0.1 ',
    ' 127.0.0.1',
    '127.0.0.256',
    '127.0.0.-1',
    '127.0.0.+1',
    '1.2.3.4.5',
    '１２７.0.0.1',
    '127.0.0.1/8',
    '',
    'localhost',
  ])('`%s` is invalid', (ip) => {
    expect(classifyAddress(ip)).toBe('invalid');
  });
});

describe('classifyAddress: IPv6 (SPEC §6)', () => {
  it.each<[string, AddressClass]>([
    ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['2a00:1450:4001:81c::200e', 'public'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
    ['fd00:ec2::253', 'private'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:db8:ffff::1', 'reserved'],
    ['2001::1', 'reserved'], // Teredo
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['2001:2::1', 'reserved'], // benchmarking
    ['2001:200::1', 'public'], // first block after the IETF assignments
    ['3fff::1', 'reserved'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'], // outside 2000::/3: unassigned, denied
    ['4000::1', 'reserved'],
    ['1::1', 'reserved'],
    // v4-mapped: the socket talks IPv4 to the embedded address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:7F00:0001', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:100.64.0.1', 'cgnat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:93.184.216.34', 'public'],
    // NAT64 well-known prefix forwards to the embedded address
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::8.8.8.8', 'reserved'],
    // 6to4 carries the relay's IPv4 in bits 16..47
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['2002:5db8:d822::1', 'public'],
    // deprecated v4-compatible and SIIT forms: the embedded class, at best reserved
    ['::127.0.0.1', 'loopback'],
    ['::10.1.2.3', 'private'],
    ['::8.8.8.8', 'reserved'],
    ['::0.0.0.2', 'reserved'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:8.8.8.8', 'reserved'],
  ])('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it.each([
    '[::1]',
    '::1%lo',
    'fe80::1%eth0',
    ':::1',
    '::1::',
    '1::2::3',
    ':1::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8::',
    '::1:2:3:4:5:6:7:8',
    '12345::1',
    'g::1',
    '::ffff:127.1',
    '::ffff:127.0.0.01',
    '::ffff:0x7f.0.0.1',
    '127.0.0.1::',
    '::127.0.0.1:1',
    '1:2:3:4:5:6:7:1.2.3.4',
    ':',
    ' ::1',
  ])('`%s` is invalid', (ip) => {
    expect(classifyAddress(ip)).toBe('invalid');
  });
});

describe('parsers', () => {
  it('reads every canonical dotted quad back to its number', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => parseIPv4(quad(n)) === n));
  });

  it('reads the full, compressed and mixed IPv6 forms as the same number', () => {
    expect(parseIPv6('::ffff:127.0.0.1')).toBe(0xffff7f000001n);
    expect(parseIPv6('0:0:0:0:0:ffff:7f00:1')).toBe(0xffff7f000001n);
    expect(parseIPv6('1::')).toBe(1n << 112n);
    expect(parseIPv6('1:0:0:0:0:0:0:0')).toBe(1n << 112n);
    expect(parseIPv6('1:2:3:4:5:6::8')).toBe(parseIPv6('1:2:3:4:5:6:0:8'));
    expect(parseIPv6('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe((1n << 128n) - 1n);
  });

  it('compares addresses by value within one family only', () => {
    expect(sameAddress('::1', '0:0:0:0:0:0:0:1')).toBe(true);
    expect(sameAddress('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(sameAddress('127.0.0.1', '::ffff:127.0.0.1')).toBe(false);
    expect(sameAddress('127.0.0.1', '127.1')).toBe(false);
    expect(sameAddress('x', 'x')).toBe(false);
  });

  it('gives a v4-mapped or NAT64 address the class of the IPv4 address inside it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const ip = quad(n);
        const cls = classifyAddress(ip);
        return classifyAddress(`::ffff:${ip}`) === cls && classifyAddress(`64:ff9b::${ip}`) === cls;
      }),
    );
  });

  it('never throws and always answers a known class, whatever the text', () => {
    const text = fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-fA-F:.]{0,45}$/u));
    fc.assert(fc.property(text, (s) => ADDRESS_CLASSES.includes(classifyAddress(s))));
  });
});
