// What the screens share: the signed-in member, the team, the agent's tags, and the open
// conversation's id.

export const state = {
  session: null,
  members: [],
  tags: [],
  openId: null,
};

export const me = () => state.session && state.session.member;
