import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Module, Controller, Post, Req, HttpCode, Header } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Controller as C2 } from '@nestjs/common';
const MODE = process.env.MODE;
class TokenController { token(tenant, req) { return { access_token: 'x'.repeat(600), token_type: 'Bearer', expires_in: 300 }; } }
Reflect.decorate([Post('token'), HttpCode(200), Header('cache-control', 'no-store'), Header('pragma', 'no-cache')], TokenController.prototype, 'token', Object.getOwnPropertyDescriptor(TokenController.prototype, 'token'));
Reflect.decorate([Controller(':tenant')], TokenController);
class AppModule {}
Reflect.decorate([Module({ controllers: [TokenController] })], AppModule);
const adapter = new FastifyAdapter();
const app = await NestFactory.create(AppModule, adapter, { logger: false });
const fastify = app.getHttpAdapter().getInstance();

if (MODE === 'raw') fastify.post('/:tenant/rawtoken', (req, reply) => { reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send({ access_token: 'x'.repeat(600), token_type: 'Bearer', expires_in: 300 }); });
await app.listen(Number(process.env.PORT), '127.0.0.1');
