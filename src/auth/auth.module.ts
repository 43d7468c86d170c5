import { Module } from '@nestjs/common';
import { JwksController } from './jwks/jwks.controller.js';
import { MetadataController } from './metadata/metadata.controller.js';

/** The public OAuth 2.1 / OpenID Connect endpoints of every tenant. */
@Module({ controllers: [MetadataController, JwksController] })
export class AuthModule {}
