import { Module } from '@nestjs/common';

/** The traffic plane: browser login and consent (with the token lifecycle), proxy, permissions, native API. */
@Module({})
export class EdgeModule {}
