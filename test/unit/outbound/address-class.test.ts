/** Address classes for outbound calls: IPv6 spellings that carry an IPv4 address are judged as that address. */
import { describe, expect, it } from 'vitest';
import { classifyAddress, embeddedIpv4, ipv6Groups } from '../../../lib/outbound/address-class';
import { addressRefusal, endpointRefusal, resolveChecked } from '../../../lib/outbound/endpoint-guard';

describe('address classes', () => {
  it('expands IPv6 addresses to eight groups, dotted tails included', () => {
    expect(ipv6Groups('::ffff:169.254.169.254')).toEqual([0, 0, 0, 0, 0, 0xffff, 0xa9fe, 0xa9fe]);
    expect(ipv6Groups('2002:a9fe:a9fe::1')).toEqual([0x2002, 0xa9fe, 0xa9fe, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('10.0.0.1')).toBeUndefined();
  });

  it.each([
    // The URL parser writes [::ffff:169.254.169.254] as [::ffff:a9fe:a9fe].
    ['::ffff:a9fe:a9fe', 'metadata', '169.254.169.254'],
    ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
    ['::ffff:a00:1', 'private', '10.0.0.1'],
    ['0:0:0:0:0:ffff:c0a8:101', 'private', '192.168.1.1'],
    ['::ffff:0:a9fe:a9fe', 'metadata', '169.254.169.254'], // SIIT
    ['::a9fe:a9fe', 'metadata', '169.254.169.254'], // IPv4-compatible
    ['::127.0.0.1', 'loopback', '127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'metadata', '169.254.169.254'], // NAT64
    ['64:ff9b::10.1.2.3', 'private', '10.1.2.3'],
    ['2002:a9fe:a9fe::', 'metadata', '169.254.169.254'], // 6to4
    ['2002:7f00:1::1', 'loopback', '127.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', '127.0.0.1'], // Teredo: the client, inverted
  ])('%s is %s (it reaches %s)', (ip, cls, v4) => {
    expect(embeddedIpv4(ipv6Groups(ip) as number[])).toBe(v4);
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['172.20.0.1', 'private'],
    ['fd12::1', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::a00:1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2:0::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['ff02::1', 'multicast'],
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('the endpoint guard', () => {
  it('refuses URLs whose host is an IPv6 spelling of a refused IPv4 address', async () => {
    for (const url of [
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[64:ff9b::169.254.169.254]/',
      'http://[2002:a9fe:a9fe::1]/',
      'http://[::169.254.169.254]/',
    ])
      expect(await endpointRefusal(url, { allowPrivateNetwork: true }), url).toMatch(/cloud metadata/);
    expect(await endpointRefusal('http://[::ffff:a00:1]/', {})).toMatch(/private network address/);
    expect(await endpointRefusal('http://[::ffff:a00:1]/', { allowPrivateNetwork: true })).toBeUndefined();
  });

  it('refuses loopback in every spelling where the policy refuses it, unless private networks are allowed', async () => {
    const targets = { allowLoopback: false, privateHint: '; alert targets must be public addresses' };
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://[::1]/',
      'http://[::ffff:7f00:1]:8080/',
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://0x7f.1/',
    ])
      expect(await endpointRefusal(url, targets), url).toBe(
        `points at a loopback address (${new URL(url).hostname.replace(/^\[|\]$/g, '')}); alert targets must be public addresses`,
      );
    expect(await endpointRefusal('http://[::ffff:7f00:1]/', { ...targets, allowPrivateNetwork: true })).toBe(
      undefined,
    );
    // A model or relay on the same machine: loopback is allowed by default.
    expect(await endpointRefusal('http://[::ffff:7f00:1]/', {})).toBeUndefined();
  });

  it('resolves names and refuses when any address is refused', async () => {
    const resolve = async () => ['93.184.216.34', '::ffff:a9fe:a9fe'];
    await expect(resolveChecked('two.example', {}, resolve)).rejects.toThrow(/cloud metadata address/);
    expect(await resolveChecked('[2001:db8::1]', {}, async () => [])).toEqual(['2001:db8::1']);
    expect(addressRefusal('10.1.1.1', { privateHint: '.' })).toBe(
      'points at a private network address (10.1.1.1).',
    );
  });
});
