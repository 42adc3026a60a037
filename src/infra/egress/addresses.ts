// Which network addresses the service may send a request to on behalf of a customer (a webhook URL): public unicast
// only. node:net's BlockList holds the refused ranges; this file only lists them and unwraps the IPv6 forms that
// carry an IPv4 address, which BlockList would otherwise judge as IPv6.
import { BlockList, isIP } from 'node:net';

const refused = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, and the cloud metadata service at 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const)
  refused.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  refused.addSubnet(prefix, bits, 'ipv6');

/** The IPv4 address an IPv6 address carries (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return undefined;
}

/** Why `address` (an IP literal) may not be sent to, or undefined when it is a public unicast address. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'is not an IP address';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return refusedAddress(v4);
    if (refused.check(address, 'ipv6')) return 'is a loopback, private, link-local or reserved address';
    return undefined;
  }
  if (refused.check(address, 'ipv4')) return 'is a loopback, private, link-local or reserved address';
  return undefined;
}
