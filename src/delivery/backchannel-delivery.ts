/** The kind of a logout token's delivery. */
export const BACKCHANNEL_LOGOUT = 'backchannel_logout';

/** What a logout token names: the client it is for and the session that ended. */
export interface LogoutDeliveryData {
  clientId: string;
  sessionId: string;
  userId: string;
}

/** The stream of one logout token's outcome events. */
export const backchannelStream = (tenantId: string, deliveryId: string) => `backchannellogout-${tenantId}.${deliveryId}`;
