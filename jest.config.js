import { availableParallelism } from 'node:os';

/** Unit, contract and end-to-end tests as ES modules, compiled by SWC (decorator metadata on, for Nest). */
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
    module: { type: 'es6' },
  },
];
export default {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/projections/**/*.spec.ts', '<rootDir>/test/**/*.contract.ts', '<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/test/**/*.fuzz-spec.ts'],
  testTimeout: 60000,
  // One test file per core. Jest's default leaves a core to its parent process, which only
  // collects results: on two cores that ran every file one after another.
  maxWorkers: availableParallelism(),
};
