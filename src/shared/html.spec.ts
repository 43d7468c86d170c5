import { describe, expect, it } from '@jest/globals';
import { formPostPage, render } from './html.js';

describe('page templates', () => {
  it('escape every value by default', () => {
    const html = render('sign-in', 'signIn.title', { action: '/t/login', interaction: '"><script>x()</script>', username: '<b>', error: 'a & b', rules: { pattern: '"><x>' } });
    expect(html).toContain('pattern="&quot;&gt;&lt;x&gt;"');
    expect(html).not.toContain('<script>x()');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;x()&lt;/script&gt;"');
    expect(html).toContain('value="&lt;b&gt;"');
    expect(html).toContain('a &amp; b');
    expect(html).toMatch(/^<!doctype html><html lang="en">/);
  });

  it('form_post: hidden fields escaped, the script a same-origin file, the button in noscript', () => {
    const html = formPostPage('https://rp.example/cb?a=1&b=2', { code: 'x"y', state: undefined });
    expect(html).toContain('action="https://rp.example/cb?a=1&amp;b=2"');
    expect(html).toContain('<input type="hidden" name="code" value="x&quot;y">');
    expect(html).not.toContain('name="state"');
    expect(html).toContain('<noscript><button type="submit">Continue</button></noscript>');
    expect(html).toContain('<script src="assets/form-post.js"></script>');
    expect(formPostPage('https://rp.example/cb', {}, false)).not.toContain('<script');
  });
});
