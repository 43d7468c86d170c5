/**
 * The texts of the edge pages in English: the catalogue every other language is checked against
 * (same keys), and the fallback for any text a catalogue lacks. `{name}` marks a value filled in
 * when the page is rendered.
 */
export const EN = {
  'signIn.title': 'Sign in',
  'signIn.heading': 'Sign in',
  'signIn.username': 'Username',
  'signIn.password': 'Password',
  'signIn.submit': 'Sign in',
  'signIn.wrongCredentials': 'Wrong username or password.',
  'signIn.busy': 'Too many sign-ins at once. Try again in {seconds} s.',
  'signIn.limit.username': 'Too many failed sign-ins with this username. Try again in {seconds} s.',
  'signIn.limit.address': 'Too many failed sign-ins from your network. Try again in {seconds} s.',
  'signIn.limit.tenant': 'Too many failed sign-ins here lately. Try again in {seconds} s.',
  'signIn.register': 'Create an account',
  'registration.title': 'Create an account',
  'registration.heading': 'Create an account',
  'registration.username': 'Username',
  'registration.email': 'E-mail address',
  'registration.name': 'Full name',
  'registration.given_name': 'Given name',
  'registration.family_name': 'Family name',
  'registration.password': 'Password',
  'registration.optional': '(optional)',
  'registration.submit': 'Create account',
  'registration.invalid': 'Some fields need attention.',
  'registration.taken': 'This username is taken.',
  'registration.weakPassword': 'Choose a longer or less common password.',
  'registration.invalidEmail': 'Enter an e-mail address.',
  'registration.tooMany': 'Too many accounts created from your network. Try again later.',
  'registration.doneTitle': 'Account created',
  'registration.doneText': 'Your account is ready.',
  'registration.continue': 'Continue to sign in',
  'form.required': 'Required.',
  'form.tooShort': 'At least {limit} characters.',
  'form.tooLong': 'At most {limit} characters.',
  'form.pattern': 'Not in the expected form.',
  'consent.title': 'Allow access?',
  'consent.heading': 'Allow access?',
  'consent.asksFor': 'asks for:',
  'consent.allow': 'Allow',
  'consent.deny': 'Deny',
  'logout.title': 'Sign out?',
  'logout.heading': 'Sign out?',
  'logout.confirm': 'Sign out',
  'logout.stay': 'Stay signed in',
  'logout.stillTitle': 'Still signed in',
  'logout.stillText': 'You are still signed in.',
  'logout.doneTitle': 'Signed out',
  'logout.doneText': 'You are signed out.',
  'logout.continue': 'Continue',
  'error.title': 'Request rejected',
  'error.heading': 'Request rejected',
  'formPost.title': 'Submitting…',
  'formPost.continueTitle': 'Continue',
  'formPost.continue': 'Continue',
} as const;

/** The key of one text of the edge pages. */
export type MessageKey = keyof typeof EN;

/** A language's texts: every key. */
export type Messages = Record<MessageKey, string>;
