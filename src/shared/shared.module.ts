import { Global, Module } from '@nestjs/common';
import { Directory } from './directory.js';

@Global()
@Module({ providers: [Directory], exports: [Directory] })
export class SharedModule {}
