import { isPublicAddress } from './address-policy.js';

describe('isPublicAddress', () => {
  it.each(['0.0.0.0', '127.0.0.1', '127.5.6.7', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254', '224.0.0.1', '255.255.255.255', '::', '::1', '[::1]', 'fe80::1', 'fe80::1%eth0', 'fd00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::127.0.0.1', 'localhost', 'not-an-ip'])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
