import { Global, Module } from '@nestjs/common';
import { Directory } from './directory.js';
import { PageLocales } from '../edge/pages/page-locales.js';

@Global()
@Module({ providers: [Directory, PageLocales], exports: [Directory, PageLocales] })
export class SharedModule {}
