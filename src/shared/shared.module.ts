import { Global, Module } from '@nestjs/common';
import { Directory } from './directory.js';
import { PageContexts } from '../edge/pages/page-contexts.js';

@Global()
@Module({ providers: [Directory, PageContexts], exports: [Directory, PageContexts] })
export class SharedModule {}
