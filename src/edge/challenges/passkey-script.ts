/**
 * The browser's part of the passkey pages (`{tenant}/assets/passkey.js`; their CSP allows no
 * inline script). The form `#passkey-form` carries the options the server made (JSON in
 * `data-options`, binary fields base64url as in WebAuthn Level 3 §5.1.8's JSON forms) and
 * `data-mode` (`create` to register, `get` to sign in). The button runs
 * navigator.credentials, then posts the credential back as JSON in the field `credential`,
 * binary fields base64url again; a refusal or a cancel shows `data-failed` and leaves the
 * button for another try.
 */
export const PASSKEY_SCRIPT_SOURCE = `(function () {
  'use strict';
  var form = document.getElementById('passkey-form');
  var button = document.getElementById('passkey-start');
  var status = document.getElementById('passkey-status');
  if (!form || !button) return;

  function bytes(text) {
    var b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) b64 += '=';
    var raw = atob(b64);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out.buffer;
  }

  function text(buffer) {
    var view = new Uint8Array(buffer);
    var raw = '';
    for (var i = 0; i < view.length; i++) raw += String.fromCharCode(view[i]);
    return btoa(raw).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }

  function withIds(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: bytes(c.id) }); });
  }

  function fail() {
    status.textContent = form.getAttribute('data-failed');
    status.hidden = false;
    button.disabled = false;
    button.focus();
  }

  button.addEventListener('click', function () {
    if (!window.PublicKeyCredential || !navigator.credentials) { fail(); return; }
    var options = JSON.parse(form.getAttribute('data-options'));
    var create = form.getAttribute('data-mode') === 'create';
    var publicKey = Object.assign({}, options, { challenge: bytes(options.challenge) });
    if (create) {
      publicKey.user = Object.assign({}, options.user, { id: bytes(options.user.id) });
      publicKey.excludeCredentials = withIds(options.excludeCredentials);
    } else {
      publicKey.allowCredentials = withIds(options.allowCredentials);
    }
    button.disabled = true;
    var asked = create ? navigator.credentials.create({ publicKey: publicKey }) : navigator.credentials.get({ publicKey: publicKey });
    asked.then(function (credential) {
      if (!credential) { fail(); return; }
      var r = credential.response;
      var response = { clientDataJSON: text(r.clientDataJSON) };
      if (create) {
        response.attestationObject = text(r.attestationObject);
        response.transports = typeof r.getTransports === 'function' ? r.getTransports() : [];
      } else {
        response.authenticatorData = text(r.authenticatorData);
        response.signature = text(r.signature);
        if (r.userHandle) response.userHandle = text(r.userHandle);
      }
      var json = { id: credential.id, rawId: text(credential.rawId), type: credential.type, response: response, clientExtensionResults: credential.getClientExtensionResults() };
      if (credential.authenticatorAttachment) json.authenticatorAttachment = credential.authenticatorAttachment;
      form.elements.namedItem('credential').value = JSON.stringify(json);
      form.submit();
    }, fail);
  });
})();
`;
