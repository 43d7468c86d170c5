import { IsBoolean, IsEmail, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import type { UserView } from '../../../projections/users.projection.js';
import type { UserClaims } from '../../domain/user/user.events.js';

/**
 * A user as the admin API takes it: the username, OpenID Connect standard claims (OIDC Core
 * §5.1), `disabled`, and a password that is only ever written (never shown, stored as a slow hash).
 */
export class UserDto {
  @IsString()
  @Matches(/^[^\s]{1,256}$/, { message: 'username must be 1-256 characters without spaces' })
  username!: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password?: string;

  @IsOptional()
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(320)
  email?: string;

  @IsOptional()
  @IsBoolean()
  email_verified?: boolean;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  given_name?: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  family_name?: string;

  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
}

const CLAIMS = ['email', 'email_verified', 'name', 'given_name', 'family_name'] as const;

export function claimsOf(dto: UserDto): UserClaims {
  const claims: Record<string, unknown> = {};
  for (const k of CLAIMS) if (dto[k] !== undefined) claims[k] = dto[k];
  return claims as UserClaims;
}

/** A user as the admin API shows it; never the password or its hash. */
export function userRepresentation(u: UserView): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const k of CLAIMS) if (u.claims[k] !== undefined) claims[k] = u.claims[k];
  return { id: u.userId, username: u.username, ...claims, disabled: u.disabled ?? false, roles: u.roles ?? [], created_at: u.createdAt, updated_at: u.updatedAt };
}
